// Runs the built CLI (dist/cli.js) as a user would, against a store and a model endpoint.
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { TEST_RUNTIME_ENV } from './harness';

const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export interface CliRun { code: number; stdout: string; stderr: string }
export interface CliEnv {
  apiKey: string;
  baseUrl: () => string;
  store: () => string;
  /** More environment for each run (HTTPS_PROXY, say). */
  extra?: () => NodeJS.ProcessEnv;
}

export function cliRunner(env: CliEnv): (...args: string[]) => Promise<CliRun> {
  return (...args) =>
    new Promise(resolve => {
      execFile(process.execPath, [CLI, ...args], {
        env: { ...process.env, ...TEST_RUNTIME_ENV, ANTHROPIC_API_KEY: env.apiKey, ANTHROPIC_BASE_URL: env.baseUrl(), FORK_AGENTS_HOME: env.store(), ...env.extra?.() },
      }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
}

/**
 * Every line a `--json` run printed (or `text`), parsed, in order; a line that is not JSON throws, so stray
 * output in --json mode fails the test. `objectsOnly`: keep only the lines that start with `{` (a terminal's
 * output, where prompts and JSON lines mix).
 */
export function jsonLines(run: Pick<CliRun, 'stdout'> | string, { objectsOnly = false } = {}): any[] {
  const text = typeof run === 'string' ? run : run.stdout;
  return text.split(/\r?\n/).filter(line => (objectsOnly ? line.startsWith('{') : line.trim() !== '')).map(line => JSON.parse(line));
}

/** The last JSON line a `--json` run printed. */
export function lastJson(run: Pick<CliRun, 'stdout'>): any {
  return jsonLines(run).at(-1);
}

/** Stops the runtime a CLI run started for `store`, if any. */
export function stopStoreRuntime(store: string): void {
  try {
    process.kill((JSON.parse(fs.readFileSync(runtimeInfoPath(store), 'utf8')) as { pid: number }).pid, 'SIGTERM');
  } catch {
    // No runtime was started.
  }
}

export interface TerminalRun { code: number | null; output: string; answered: boolean; questions: number }

/**
 * Runs the built CLI on a pseudo-terminal (script(1)), as a user at a terminal would, and answers each
 * `[y/N]` question it prints with `answer`.
 */
export function runOnTerminal(args: string[], env: NodeJS.ProcessEnv, answer: 'y' | 'n'): Promise<TerminalRun> {
  const line = [process.execPath, CLI, ...args].map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', line, '/dev/null'], { env: { ...process.env, ...TEST_RUNTIME_ENV, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let questions = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    output += text;
    for (; output.split('[y/N]').length - 1 > questions; questions++) child.stdin.write(`${answer}\r`);
  });
  return new Promise(resolve => child.on('close', code => resolve({ code, output, answered: questions > 0, questions })));
}
