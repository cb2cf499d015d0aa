// Starts the fake Anthropic Messages API (dist/fake-anthropic.js) with its demo model.
import * as path from 'node:path';
import { firstJsonLine, freePort, spawnGroup } from './processes';
import type { Group } from './processes';

export interface FakeAnthropic {
  url: string;
  port: number;
  apiKey: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface FakeOptions {
  repoRoot: string;
  logDir: string;
  apiKey: string;
  /** Reuse a port (restarting the fake with another key keeps the extension's base URL valid). */
  port?: number;
  /** Pause between SSE events so streaming is visible (demo, UI checks). */
  streamDelayMs?: number;
  /** Serve GET /v1/models (today's list) as the API does; off by default (see below). */
  models?: boolean;
}

export async function startFakeAnthropic(options: FakeOptions): Promise<FakeAnthropic> {
  const port = options.port ?? (await freePort());
  const logFile = path.join(options.logDir, `fake-anthropic-${port}.log`);
  const script = path.join(options.repoRoot, 'dist', 'fake-anthropic.js');
  // --no-models: the UI checks and the extension-host suite were written against an endpoint without a
  // models list (the picker shows fork.model / fork.models); the listed case is covered by the runtime's tests.
  const args = [script, '--port', String(port), '--demo', '--api-key', options.apiKey, ...(options.models ? [] : ['--no-models'])];
  if (options.streamDelayMs) args.push('--stream-delay-ms', String(options.streamDelayMs));
  const group: Group = spawnGroup(process.execPath, args, {
    env: process.env,
    logFile,
    pipeStdout: true,
  });
  try {
    const announced = await firstJsonLine<{ url?: string }>(group.child, 15_000, `fake Anthropic server (log: ${logFile})`);
    if (!announced.url) throw new Error(`fake Anthropic server announced no url (log: ${logFile})`);
    return { url: announced.url, port, apiKey: options.apiKey, logFile, stop: () => group.stop(3000) };
  } catch (error) {
    await group.stop(1000);
    throw error;
  }
}
