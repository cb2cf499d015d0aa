// One setup command of a fork's worktree: `bash -lc` in the worktree, with the fork's
// environment, in its own process group (recorded, so whatever it leaves running ends with the fork),
// output streamed as it comes and its tail kept for the transcript and for a failure's reason.
import { spawn } from 'node:child_process';
import { planCommand } from '../../sandbox/commandPlan';
import type { CommandSandbox } from '../../tools/types';

export interface SetupRun {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput(text: string): void;
  onProcessGroup(pgid: number): void;
  /** The fork's sandbox: setup runs under the same rules as its commands. */
  sandbox?: CommandSandbox;
}

export interface SetupResult {
  command: string;
  exitCode: number | null;
  signal?: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The last lines of its output. */
  tail: string;
}

const TAIL_CHARS = 2_000;
const KILL_GRACE_MS = 2_000;

export function runSetupCommand(run: SetupRun): Promise<SetupResult> {
  const started = Date.now();
  return new Promise(resolve => {
    let tail = '';
    let timedOut = false;
    let settled = false;
    const own = { ...run.env, PAGER: 'cat', GIT_PAGER: 'cat' };
    const plan = planCommand(run.sandbox, run.command, run.cwd, own);
    if ('refused' in plan) {
      resolve({ command: run.command, exitCode: null, timedOut: false, cancelled: false, durationMs: 0, tail: plan.refused });
      return;
    }
    const child = spawn(plan.file, plan.args, {
      cwd: run.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...plan.stdio] as ['ignore', 'pipe', 'pipe'], // fds from 3: the sandbox's
      env: plan.env,
    });
    plan.started();
    if (child.pid !== undefined) run.onProcessGroup(child.pid);
    const kill = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Gone.
        }
      }, KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, run.timeoutMs);
    const onAbort = () => kill();
    run.signal.addEventListener('abort', onAbort, { once: true });
    const onData = (text: string) => {
      tail = (tail + text).slice(-TAIL_CHARS);
      run.onOutput(text);
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const done = (exitCode: number | null, signal?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      resolve({ command: run.command, exitCode, signal, timedOut, cancelled: run.signal.aborted, durationMs: Date.now() - started, tail });
    };
    child.on('error', error => {
      onData(`Could not start bash: ${error.message}\n`);
      done(null);
    });
    // 'close': every holder of its output has let go (or was killed). A setup that leaves a daemon
    // holding the pipes would never close, so 'exit' ends the wait a moment later.
    child.on('close', (code, signal) => done(code, signal ?? undefined));
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        done(code, signal ?? undefined);
      }, 1_000).unref();
    });
  });
}
