// Runs the built CLI (dist/cli.js) as a user would, against a store and a model endpoint.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath } from '../../src/ipc/socketPath';

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
        env: { ...process.env, ANTHROPIC_API_KEY: env.apiKey, ANTHROPIC_BASE_URL: env.baseUrl(), FORK_AGENTS_HOME: env.store(), ...env.extra?.() },
      }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
}

/** The last JSON line a `--json` run printed. */
export function lastJson(run: CliRun): any {
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

/** Stops the runtime a CLI run started for `store`, if any. */
export function stopStoreRuntime(store: string): void {
  try {
    process.kill((JSON.parse(fs.readFileSync(runtimeInfoPath(store), 'utf8')) as { pid: number }).pid, 'SIGTERM');
  } catch {
    // No runtime was started.
  }
}
