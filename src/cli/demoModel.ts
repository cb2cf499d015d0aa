// `fork-agents … --demo`: the local scripted demo model (the fake Messages API server with its demo
// responder, dist/fake-anthropic.js) instead of a real endpoint — no key, no network. It runs detached, like
// the runtime, so a fork started with --demo keeps working after the CLI exits; later --demo calls on the
// same store reuse it, and it exits by itself after 10 idle minutes. It ships with the source checkout only
// (the packaged extension leaves the fake server out).
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { DetachedStartError, spawnDetached } from '../client/spawnDetached';
import { CliFailure } from './output';

export const DEMO_API_KEY = 'sk-ant-fork-agents-demo';
const IDLE_EXIT_MS = 10 * 60_000;
const START_TIMEOUT_MS = 15_000;

export interface DemoModel { url: string; apiKey: string }

export async function ensureDemoModel(storeDir: string): Promise<DemoModel> {
  const urlFile = path.join(storeDir, 'demo-model.json');
  const running = readUrl(urlFile);
  if (running && (await answers(running))) return { url: running, apiKey: DEMO_API_KEY };
  const script = path.join(__dirname, 'fake-anthropic.js');
  if (!fs.existsSync(script)) {
    throw new CliFailure(`--demo needs the demo model (${script}), which ships with the source checkout only: run \`npm run build\` there`);
  }
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  fs.rmSync(urlFile, { force: true });
  const log = path.join(storeDir, 'demo-model.log');
  try {
    const { value: url } = await spawnDetached({
      command: process.execPath,
      args: [script, '--port', '0', '--demo', '--api-key', DEMO_API_KEY, '--url-file', urlFile, '--idle-exit-ms', String(IDLE_EXIT_MS)],
      logFd: fs.openSync(log, 'a', 0o600),
      ready: () => readUrl(urlFile),
      timeoutMs: START_TIMEOUT_MS,
      exitIsFailure: true,
    });
    return { url, apiKey: DEMO_API_KEY };
  } catch (error) {
    if (!(error instanceof DetachedStartError)) throw error;
    throw new CliFailure(error.code === undefined
      ? `the demo model did not start within ${START_TIMEOUT_MS / 1000}s; see ${log}`
      : `the demo model exited (code ${error.code}); see ${log}`);
  }
}

function readUrl(file: string): string | undefined {
  try {
    const { url } = JSON.parse(fs.readFileSync(file, 'utf8')) as { url?: unknown };
    return typeof url === 'string' && /^http:\/\/127\.0\.0\.1:\d+$/.test(url) ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a demo model answers there (a stale file can name a port some other program now holds). */
function answers(url: string): Promise<boolean> {
  return new Promise(resolve => {
    const req = http.get(`${url}/v1/demo-probe`, { timeout: 2000 }, res => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body.includes('fake server')));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
