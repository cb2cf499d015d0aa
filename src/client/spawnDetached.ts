// Starts a detached helper process (the runtime, the demo model) and waits until it is ready: its output
// goes to a log file, it outlives the caller, and readiness is whatever the caller checks (a socket that
// accepts, a URL file written), tried with a growing pause until a deadline.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export interface DetachedStart<T> {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** An open file for the process's stdout and stderr; closed here once the child has it. */
  logFd: number;
  /** Returns the ready value once the process is ready, else undefined. */
  ready(): T | undefined | Promise<T | undefined>;
  timeoutMs: number;
  /**
   * Whether the process ending before it is ready fails at once. The runtime's does not: a runtime that lost
   * the race for its store's socket exits while the winner becomes ready.
   */
  exitIsFailure: boolean;
}

/** The process ended before it was ready (`code`), or was not ready in time (`code` undefined). */
export class DetachedStartError extends Error {
  constructor(readonly code: number | null | undefined, message: string) {
    super(message);
  }
}

// A ready check is a stat or a connect (well under a millisecond), while every pause is added to a cold
// start: short pauses while a healthy start would finish, growing ones after.
const SHORT_PAUSE_MS = 10;
const SHORT_PAUSES_FOR_MS = 2_000;
const LONGEST_PAUSE_MS = 250;

export async function spawnDetached<T>(options: DetachedStart<T>): Promise<{ value: T; pid?: number }> {
  const child = spawn(options.command, options.args, { detached: true, stdio: ['ignore', options.logFd, options.logFd], env: options.env });
  child.unref();
  fs.closeSync(options.logFd);
  let exited: Promise<never> | undefined;
  if (options.exitIsFailure) {
    exited = new Promise<never>((_, reject) => child.once('exit', code => reject(new DetachedStartError(code, `exited (code ${code})`))));
    // Safe to drop: only raced against readiness below; an exit after readiness is not a start failure.
    exited.catch(() => undefined);
  }
  try {
    const started = Date.now();
    const deadline = started + options.timeoutMs;
    for (let pause = SHORT_PAUSE_MS; ; pause = Date.now() - started < SHORT_PAUSES_FOR_MS ? SHORT_PAUSE_MS : Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      const value = await options.ready();
      if (value !== undefined) return { value, pid: child.pid };
      if (Date.now() >= deadline) throw new DetachedStartError(undefined, `not ready within ${options.timeoutMs / 1000}s`);
      const wait = new Promise(resolve => setTimeout(resolve, pause));
      await (exited ? Promise.race([wait, exited]) : wait);
    }
  } finally {
    child.removeAllListeners('exit');
  }
}
