// bash: run a shell command in the session root. The command gets its own process group so a timeout
// or a cancel can kill everything it started (servers, `sleep`, watchers), not just the shell.
import { spawn } from 'node:child_process';
import { planCommand } from '../sandbox/commandPlan';
import { positiveWholeFromEnv } from '../envKnob';
import { randomUUID } from 'node:crypto';
import { expectObject, optionalInteger, peekString, requireString, safeDescribe } from './input';
import { CALL_MARKER, markedProcesses, signalAll } from './processTree';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'bash';
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** Between SIGTERM and SIGKILL: lets well-behaved programs clean up (FORK_AGENTS_BASH_KILL_GRACE_MS, for tests). */
export const KILL_GRACE_MS = 2_000;
/**
 * After the shell exits, how long background children may keep the output pipes open before we stop reading
 * (FORK_AGENTS_BASH_DRAIN_MS, for tests).
 */
export const DRAIN_MS = 1_000;

/** Keeps the first and last halves of the output in bounded memory, counting what was dropped. */
class HeadTail {
  private head = '';
  private tail: string[] = [];
  private tailChars = 0;
  private dropped = 0;
  constructor(private readonly headMax: number, private readonly tailMax: number) {}

  push(text: string): void {
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === '') return;
    this.tail.push(text);
    this.tailChars += text.length;
    while (this.tail.length > 1 && this.tailChars - this.tail[0].length >= this.tailMax) {
      this.tailChars -= this.tail[0].length;
      this.dropped += this.tail.shift()!.length;
    }
  }

  toString(): string {
    let tail = this.tail.join('');
    let dropped = this.dropped;
    if (tail.length > this.tailMax) {
      dropped += tail.length - this.tailMax;
      tail = tail.slice(tail.length - this.tailMax);
    }
    if (dropped === 0) return this.head + tail;
    return `${this.head}\n\n… [${dropped} characters of output omitted] …\n\n${tail}`;
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Every call this runtime started: marker id → its process group. Finished calls stay: their background children may live on. */
const started = new Map<string, number>();

/** Stops a call's group and every process carrying its marker (those that called setsid). */
function signalCall(id: string, pgid: number, signal: NodeJS.Signals): void {
  signalGroup(pgid, signal);
  signalAll(markedProcesses(new Set([id])), signal);
}

/**
 * On runtime shutdown: kills everything the bash tool ever started, background servers and setsid
 * children included. SIGKILL: the runtime is exiting and cannot wait for a grace period.
 */
export function killAllCommands(): void {
  for (const pgid of started.values()) signalGroup(pgid, 'SIGKILL');
  signalAll(markedProcesses(new Set(started.keys())), 'SIGKILL');
  started.clear();
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function runCommand(command: string, timeoutMs: number, ctx: ToolContext): Promise<ToolOutput> {
  return new Promise(resolve => {
    const output = new HeadTail(BASH_MAX_OUTPUT_CHARS / 2, BASH_MAX_OUTPUT_CHARS / 2);
    const callId = randomUUID();
    const killGraceMs = positiveWholeFromEnv(process.env, 'FORK_AGENTS_BASH_KILL_GRACE_MS', KILL_GRACE_MS);
    const drainMs = positiveWholeFromEnv(process.env, 'FORK_AGENTS_BASH_DRAIN_MS', DRAIN_MS);
    const own = { ...ctx.env, PAGER: 'cat', GIT_PAGER: 'cat', [CALL_MARKER]: callId };
    // Sandboxed: bwrap leads the group instead of bash, and the command sees only an allow-listed environment.
    const plan = planCommand(ctx.sandbox, command, ctx.root, own);
    if ('refused' in plan) {
      resolve({ content: plan.refused, isError: true });
      return;
    }
    const child = spawn(plan.file, plan.args, {
      cwd: ctx.root,
      detached: true, // a new process group, led by bash: -pid addresses all of it
      // no stdin: a command waiting for input sees EOF instead of hanging; fds from 3 are the sandbox's (its seccomp program)
      stdio: ['ignore', 'pipe', 'pipe', ...plan.stdio] as ['ignore', 'pipe', 'pipe'],
      env: plan.env,
    });
    plan.started();
    if (child.pid !== undefined) started.set(callId, child.pid);
    // Background children stay in this group after bash exits: a fork ends them when it ends. (In the
    // sandbox they end with the command: its pid namespace goes when bash does.)
    if (child.pid !== undefined) ctx.onProcessGroup?.(child.pid);
    let stoppedBy: 'timeout' | 'cancel' | undefined;
    let exited = false;
    let closed = false;
    let drained = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let finished = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = (result: ToolOutput) => {
      if (finished) return;
      finished = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      // A pending SIGKILL still fires after we return: group members that trapped SIGTERM and
      // closed their output must not outlive the call for long. unref: it must not keep the runtime up.
      killTimer?.unref();
      ctx.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };

    const maybeFinish = () => {
      // Closed pipes mean every process still holding them has exited; drained means we stopped waiting.
      if (finished || !exited || (!closed && !drained)) return;
      const text = output.toString();
      const notes: string[] = [];
      if (drained && !stoppedBy) notes.push('[Background processes still hold the output open; what they print from now on is not shown.]');
      if (stoppedBy === 'timeout') notes.push(`[Timed out after ${seconds(timeoutMs)}; the command and all its child processes were killed.]`);
      else if (stoppedBy === 'cancel') notes.push('[Cancelled; the command and all its child processes were killed.]');
      else if (exitCode !== null) notes.push(`[Exit code: ${exitCode}]`);
      else notes.push(`[Killed by signal ${exitSignal ?? 'unknown'}]`);
      if (exitCode !== 0 && !stoppedBy) {
        const why = ctx.sandbox?.explain(text);
        if (why) notes.push(why);
      }
      const body = text === '' ? '(no output)' : text.replace(/\n$/, '');
      finish({ content: `${body}\n\n${notes.join('\n')}`, isError: stoppedBy !== undefined || exitCode !== 0, exitCode: stoppedBy ? null : exitCode });
    };

    const terminate = (why: 'timeout' | 'cancel') => {
      if (finished || stoppedBy || exited || child.pid === undefined) return; // after exit only background children remain: leave them
      stoppedBy = why;
      const pgid = child.pid;
      signalCall(callId, pgid, 'SIGTERM');
      killTimer = setTimeout(() => signalCall(callId, pgid, 'SIGKILL'), killGraceMs);
    };
    const onAbort = () => terminate('cancel');
    const timeoutTimer = setTimeout(() => terminate('timeout'), timeoutMs);
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8'); // decodes across chunk boundaries
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text: string) => output.push(text));
    child.stderr.on('data', (text: string) => output.push(text));

    child.on('error', err => {
      finish({ content: `Could not start bash in ${ctx.root}: ${err.message}`, isError: true });
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      if (!closed) {
        drainTimer = setTimeout(() => {
          drained = true;
          child.stdout.destroy();
          child.stderr.destroy();
          maybeFinish();
        }, drainMs);
      }
      maybeFinish();
    });
    child.on('close', () => {
      closed = true;
      maybeFinish();
    });
  });
}

export const bashTool: Tool = {
  definition: {
    name: NAME,
    description:
      'Run a shell command with `bash -lc` in the workspace root and return its combined stdout and stderr and its ' +
      'exit code. Each call starts a fresh shell (cd and variables do not carry over; chain commands with `&&`). ' +
      `There is no stdin, so interactive programs get end-of-file. The timeout defaults to ${BASH_DEFAULT_TIMEOUT_MS / 1000} s ` +
      `(at most ${BASH_MAX_TIMEOUT_MS / 1000} s); on timeout or cancel the command and every process it started are ` +
      `killed. Output beyond ${BASH_MAX_OUTPUT_CHARS} characters keeps its beginning and end. Prefer read_file, ` +
      'list_files, grep, write_file and edit_file for reading, finding and changing files.',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line to run.' },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          maximum: BASH_MAX_TIMEOUT_MS,
          description: `Timeout in milliseconds. Default ${BASH_DEFAULT_TIMEOUT_MS}.`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
  category: 'exec',

  describe(input: unknown): string {
    return safeDescribe('Run a command', () => `Run ${peekString(input, 'command') ?? 'a command'}`);
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['command', 'timeout_ms']);
    const command = requireString(NAME, fields, 'command');
    if (command.trim() === '') throw new ToolError('bash: command is empty.');
    if (command.includes('\0')) throw new ToolError('bash: command contains a NUL byte.');
    const timeoutMs = optionalInteger(NAME, fields, 'timeout_ms', 1, BASH_MAX_TIMEOUT_MS) ?? BASH_DEFAULT_TIMEOUT_MS;
    if (ctx.signal.aborted) return { content: '[Cancelled before the command started.]', isError: true };
    return runCommand(command, timeoutMs, ctx);
  },
};
