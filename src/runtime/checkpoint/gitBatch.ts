// One long-lived git process of a shadow (`hash-object --stdin-paths`, `cat-file --batch`,
// `check-ignore --stdin`): a checkpoint writes its requests and reads the answers, instead of spawning a
// git per question — a spawn costs 3–6 ms of CPU (docs/benchmarks.md), a round trip on a live one well
// under one. Answers come in request order; each request says how to find the end of its answer. The
// process ends when idle (no handle keeps the runtime up), on any error, and when its shadow is removed.
import type { ChildProcess } from 'node:child_process';
import { spawnGit } from '../git/run';
import { nameOf } from './pathBytes';

/** How long an idle process stays up. */
const IDLE_MS = 30_000;
/** An answer that takes longer than this means a stuck git: the process is ended and the request fails. */
const ANSWER_MS = 60_000;

/** Given the unread output, the answer and how many bytes it took, or undefined when it is not all there. */
export type AnswerParser<T> = (buffer: Buffer) => { value: T; used: number } | undefined;

interface Pending { parse: AnswerParser<unknown>; resolve: (value: unknown) => void; reject: (error: Error) => void }

export class GitBatch {
  private child?: ChildProcess;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private idle?: NodeJS.Timeout;
  private stuck?: NodeJS.Timeout;
  private stderr = '';

  constructor(private readonly cwd: string, private readonly args: string[], private readonly env: () => Record<string, string>) {}

  /** Sends `input` and resolves with the answer `parse` finds. */
  request<T>(input: string | Buffer, parse: AnswerParser<T>): Promise<T> {
    const child = this.child ?? this.start();
    clearTimeout(this.idle);
    // Waited for: the process holds the runtime up until it answers (a CLI run would end meanwhile).
    hold(child, true);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ parse, resolve: resolve as (value: unknown) => void, reject });
      if (!this.stuck) this.stuck = setTimeout(() => this.fail(new Error(`git ${this.args.join(' ')}: no answer in ${ANSWER_MS} ms`)), ANSWER_MS).unref();
      child.stdin?.write(input);
    });
  }

  close(): void {
    this.fail(new Error('closed'));
  }

  /** The live process's id, if one runs (the bench reads its CPU time). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): ChildProcess {
    const child = spawnGit(this.cwd, this.args, this.env());
    this.child = child;
    this.buffer = Buffer.alloc(0);
    this.stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr?.on('data', (chunk: Buffer) => { this.stderr = (this.stderr + chunk.toString()).slice(-2000); });
    // An exit (git refused a path, a path vanished) fails what is waiting; the next request starts afresh.
    child.on('exit', code => { if (this.child === child) this.fail(new Error(`git ${this.args[this.args.length - 2] ?? ''} ${this.args[this.args.length - 1] ?? ''} exited (${String(code)}): ${this.stderr.trim().split('\n').slice(-2).join(' ')}`)); });
    child.on('error', error => { if (this.child === child) this.fail(error); });
    child.stdin?.on('error', () => undefined);
    return child;
  }

  private read(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.pending.length > 0) {
      const answer = this.pending[0].parse(this.buffer);
      if (!answer) break;
      this.buffer = this.buffer.subarray(answer.used);
      this.pending.shift()!.resolve(answer.value);
    }
    if (this.pending.length === 0) {
      // Idle: neither the process nor its pipes keep the runtime (or a test run) alive.
      if (this.child) hold(this.child, false);
      clearTimeout(this.stuck);
      this.stuck = undefined;
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.close(), IDLE_MS).unref();
    }
  }

  private fail(error: Error): void {
    clearTimeout(this.idle);
    clearTimeout(this.stuck);
    this.stuck = undefined;
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin?.end();
      if (child.exitCode === null) child.kill();
    }
    for (const waiting of this.pending.splice(0)) waiting.reject(error);
  }
}

function hold(child: ChildProcess, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const pipe of [child.stdin, child.stdout, child.stderr]) {
    const handle = pipe as unknown as { ref?: () => void; unref?: () => void } | null;
    if (on) handle?.ref?.();
    else handle?.unref?.();
  }
}

/** An answer of lines: `count` of them, each ending in `\n`. */
export function lines(count: number): AnswerParser<string[]> {
  return buffer => {
    let at = 0;
    const out: string[] = [];
    while (out.length < count) {
      const end = buffer.indexOf(10, at);
      if (end < 0) return undefined;
      out.push(buffer.subarray(at, end).toString());
      at = end + 1;
    }
    return { value: out, used: at };
  };
}

/** An answer of `count` NUL-ended fields; names keep their bytes (pathBytes.ts). */
export function fields(count: number): AnswerParser<string[]> {
  return buffer => {
    let at = 0;
    const out: string[] = [];
    while (out.length < count) {
      const end = buffer.indexOf(0, at);
      if (end < 0) return undefined;
      out.push(nameOf(buffer.subarray(at, end)));
      at = end + 1;
    }
    return { value: out, used: at };
  };
}

/** One `cat-file --batch` answer: `<id> <type> <size>\n<content>\n`, or `<name> missing\n`. */
export const catFileObject: AnswerParser<{ type: string; content: Buffer } | undefined> = buffer => {
  const end = buffer.indexOf(10);
  if (end < 0) return undefined;
  const header = buffer.subarray(0, end).toString().split(' ');
  if (header.length < 3) return { value: undefined, used: end + 1 };
  const size = Number(header[2]);
  if (buffer.length < end + 1 + size + 1) return undefined;
  return { value: { type: header[1], content: buffer.subarray(end + 1, end + 1 + size) }, used: end + 1 + size + 1 };
};
