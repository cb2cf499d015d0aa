// The group commit of fork starts (docs/design.md §4.7). What "started" promises: once fork/start answers,
// the fork's bytes are written (write(2) returned) to one store-wide file, so a crash of the runtime or of
// the editor after the answer never loses the fork — the kernel holds the bytes, and the next runtime brings
// it back from them (`recoverStarts`). The fdatasync that makes them survive a power loss runs after the
// answer, off the critical path, and completes before the fork's first model request and before any notice
// naming the fork reaches a parent's request: nothing is spent on, or told to a model about, a fork a power
// loss could erase. A failed flush fails the fork. Each start's frame is written at once on the runtime's
// thread (a page-cache write of tens of KB), and every frame written by the time a flush begins shares that
// one fdatasync on the thread pool; frames written while it runs wait for the next (docs/benchmarks.md,
// "Fifty siblings": creating and flushing fifty files before answering took a commit per wave of the pool).
// Each fork's own file is created on the thread pool beside the frame and flushed afterwards; once the file
// and its name are on disk its frame is no longer needed, and once no frame is, the journal is emptied. A
// runtime that starts finds the frames still there and writes every fork file that is missing or torn from
// them (`recoverStarts`) before it loads the forks.
//
// Format: frames one after another. A start frame is a line `{"start":"<id>","bytes":N}` and then the N
// bytes of the fork's file (its header and bootstrap lines); a drop frame `{"drop":"<id>"}` says a fork
// that failed to start (or was deleted) is not to be brought back. A frame torn by a crash is the last one,
// never answered: reading stops there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openPrivateFile } from '../../ipc/privateFs';

interface Signal { resolve(): void; reject(error: Error): void }
interface Waiting { buffers: Buffer[]; bytes: number; written: Signal; flushed: Signal }

/** A frame's two moments: written (a crash of the process keeps it) and flushed (a power loss keeps it). */
export interface Journaled { written: Promise<void>; flushed: Promise<void> }

export class StartJournal {
  private fd: number | undefined;
  /** Where the next frame goes: the bytes of frames written so far (the journal is never opened for append). */
  private size = 0;
  private batch: Waiting[] = [];
  /** Frames written and not yet flushed: the next fdatasync's. */
  private unflushed: Waiting[] = [];
  private flushing = false;
  private emptying = false;
  /** A failed flush: the page cache may have dropped what it held (fsync errors are not retried). */
  private failed: Error | undefined;
  /** Forks whose frame is on disk (or being written) while their own file is not yet durable. */
  private readonly live = new Set<string>();
  /**
   * The journal held frames when this process opened it (no recoverStarts ran first): they are kept for
   * the runtime that recovers, so this one appends after them and never empties the file.
   */
  private inherited = false;
  private idleWaiters: (() => void)[] = [];
  /**
   * Runs before each fdatasync, which waits for it; a rejection is that flush's failure. Unset in use: a
   * test holds or fails the flush with it (the runtime sets it from FORK_AGENTS_START_FLUSH_GATE).
   */
  beforeFlush?: () => Promise<void>;

  constructor(readonly file: string) {}

  /**
   * Appends a fork's file bytes as a frame, written on this thread as it comes (after an emptying of the
   * journal under way, if one is), and flushed by the next fdatasync, which every frame written when it
   * begins shares.
   */
  add(id: string, bytes: Buffer | readonly Buffer[]): Journaled {
    this.live.add(id);
    const pieces = Buffer.isBuffer(bytes) ? [bytes] : bytes;
    const length = pieces.reduce((n, piece) => n + piece.length, 0);
    const head = Buffer.from(`${JSON.stringify({ start: id, bytes: length })}\n`, 'utf8');
    return this.enqueue([head, ...pieces]);
  }

  /** The fork's own file and its name are durable: its frame may go. */
  retire(id: string): void {
    if (this.live.delete(id)) this.pump();
  }

  /**
   * The fork will not run (its start failed) or was deleted: a drop frame, so a runtime that starts after
   * a crash does not bring it back. Nothing to write when its frame is gone already. Resolves once flushed.
   */
  drop(id: string): Promise<void> {
    if (!this.live.delete(id)) return Promise.resolve();
    return this.enqueue([Buffer.from(`${JSON.stringify({ drop: id })}\n`, 'utf8')]).flushed;
  }

  /** Forks whose frame is still needed (tests and the doctor). */
  pending(): string[] {
    return [...this.live];
  }

  /** Resolves once no frame is needed and nothing is being written: the journal is empty (or inherited). */
  whenIdle(): Promise<void> {
    return new Promise(resolve => {
      this.idleWaiters.push(resolve);
      this.pump();
    });
  }

  private enqueue(buffers: Buffer[]): Journaled {
    if (this.failed) {
      const refused = Promise.reject(this.failed);
      refused.catch(() => undefined);
      return { written: refused, flushed: refused };
    }
    let written!: Signal;
    let flushed!: Signal;
    const result: Journaled = {
      written: new Promise<void>((resolve, reject) => (written = { resolve, reject })),
      flushed: new Promise<void>((resolve, reject) => (flushed = { resolve, reject })),
    };
    // Handled here: a caller may await only one of the two.
    result.written.catch(() => undefined);
    result.flushed.catch(() => undefined);
    this.batch.push({ buffers, bytes: buffers.reduce((n, b) => n + b.length, 0), written, flushed });
    this.pump();
    return result;
  }

  private pump(): void {
    if (this.emptying) return;
    // A batch is written whole before writeBatch returns (on this thread), so no write is ever under way here.
    if (this.batch.length > 0) this.writeBatch();
    if (!this.flushing && this.unflushed.length > 0) this.flush();
    if (this.flushing || this.live.size > 0) return;
    // Nothing waits and every frame written is retired: empty the journal. Not flushed: a runtime that
    // finds the frames after a crash finds their files whole and leaves them.
    if (this.size > 0 && this.fd !== undefined && !this.inherited) {
      this.emptying = true;
      fs.ftruncate(this.fd, 0, error => {
        this.emptying = false;
        if (!error) this.size = 0;
        this.pump();
      });
      return;
    }
    for (const idle of this.idleWaiters.splice(0)) idle();
  }

  private writeBatch(): void {
    const frames = this.batch.splice(0);
    const fail = (error: unknown) => {
      const problem = error instanceof Error ? error : new Error(String(error));
      for (const frame of frames) {
        frame.written.reject(problem);
        frame.flushed.reject(problem);
      }
      this.pump();
    };
    try {
      if (this.fd === undefined) {
        // Read-write without O_APPEND: frames go at positions this writer keeps (append mode ignores them).
        this.fd = openPrivateFile(this.file, fs.constants.O_RDWR | fs.constants.O_CREAT);
        this.size = fs.fstatSync(this.fd).size;
        this.inherited = this.size > 0;
      }
    } catch (error) {
      return fail(error);
    }
    const at = this.size;
    const buffers = frames.flatMap(f => f.buffers);
    const bytes = frames.reduce((n, f) => n + f.bytes, 0);
    try {
      writeAllAt(this.fd, buffers, at);
    } catch (error) {
      // The next frames overwrite whatever part of these was written: the valid frames stay contiguous.
      return fail(error);
    }
    this.size = at + bytes;
    if (this.failed) {
      // A flush failed while these were written: no later flush is trusted with them.
      for (const frame of frames) frame.flushed.reject(this.failed);
    } else this.unflushed.push(...frames);
    for (const frame of frames) frame.written.resolve();
    this.pump();
  }

  /** One fdatasync for every frame written so far; frames written while it runs wait for the next. */
  private flush(): void {
    const frames = this.unflushed.splice(0);
    const fd = this.fd!;
    this.flushing = true;
    const done = (error?: unknown) => {
      this.flushing = false;
      if (error) {
        const problem = error instanceof Error ? error : new Error(String(error));
        this.failed = problem;
        for (const frame of [...frames, ...this.unflushed.splice(0)]) frame.flushed.reject(problem);
      } else for (const frame of frames) frame.flushed.resolve();
      this.pump();
    };
    const gate = this.beforeFlush?.() ?? Promise.resolve();
    gate.then(() => fs.fdatasync(fd, flushError => done(flushError ?? undefined)), done);
  }

  close(): void {
    if (this.fd !== undefined && !this.flushing && !this.emptying) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * writev at `position`, then what a short write left, until every byte is written: on the runtime's thread,
 * as a copying fork writes its file. A frame is tens of KB into the page cache, microseconds; a round trip
 * through the thread pool cost milliseconds on a loaded machine (docs/benchmarks.md). The fork file's
 * create, which can wait for the file system's journal, stays off this thread (offThreadFlush.ts).
 */
function writeAllAt(fd: number, buffers: Buffer[], position: number): void {
  const total = buffers.reduce((n, b) => n + b.length, 0);
  const written = fs.writevSync(fd, buffers, position);
  if (written >= total) return;
  if (written <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
  writeAllAt(fd, [Buffer.concat(buffers).subarray(written)], position + written);
}

interface Frame { id: string; bytes?: Buffer }

/** The frames of a journal's bytes, in order, up to the first torn or unreadable one. */
export function readFrames(data: Buffer): Frame[] {
  const frames: Frame[] = [];
  for (let at = 0; at < data.length;) {
    const newline = data.indexOf(0x0a, at);
    if (newline < 0) break;
    let head: { start?: unknown; drop?: unknown; bytes?: unknown };
    try {
      head = JSON.parse(data.subarray(at, newline).toString('utf8')) as typeof head;
    } catch {
      break;
    }
    at = newline + 1;
    if (typeof head.drop === 'string') {
      frames.push({ id: head.drop });
      continue;
    }
    if (typeof head.start !== 'string' || typeof head.bytes !== 'number' || !Number.isInteger(head.bytes) || head.bytes < 0) break;
    if (at + head.bytes > data.length) break;
    frames.push({ id: head.start, bytes: data.subarray(at, at + head.bytes) });
    at += head.bytes;
  }
  return frames;
}

const FORK_FILE = /^f-[A-Za-z0-9-]+$/;

/**
 * Run by a runtime that owns the store, before it loads any session: every fork file the journal holds
 * that is missing, or shorter than its frame (torn), is written from its frame and flushed with its folder;
 * then the journal is emptied. A file that begins with its frame's bytes is whole and kept (the fork may
 * have run on). Returns the ids written, and problems (a file that differs from its frame is left alone).
 */
export function recoverStarts(journalFile: string, sessionsDir: string): { written: string[]; problems: string[] } {
  let data: Buffer;
  try {
    data = fs.readFileSync(journalFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { written: [], problems: [] };
    throw error;
  }
  const wanted = new Map<string, Buffer>();
  for (const frame of readFrames(data)) {
    if (frame.bytes) wanted.set(frame.id, frame.bytes);
    else wanted.delete(frame.id);
  }
  const written: string[] = [];
  const problems: string[] = [];
  for (const [id, bytes] of wanted) {
    if (!FORK_FILE.test(id)) {
      problems.push(`the start journal names ${JSON.stringify(id)}, not a fork id`);
      continue;
    }
    const file = path.join(sessionsDir, `${id}.jsonl`);
    const have = readIfExists(file);
    if (have && have.length >= bytes.length && have.subarray(0, bytes.length).equals(bytes)) continue;
    if (have && !(have.length < bytes.length && bytes.subarray(0, have.length).equals(have))) {
      problems.push(`${id}: its file differs from the start journal's copy; left as it is`);
      continue;
    }
    const fd = openPrivateFile(file, 'w');
    try {
      for (let offset = 0; offset < bytes.length;) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    written.push(id);
  }
  if (written.length > 0) syncFolder(sessionsDir);
  fs.truncateSync(journalFile, 0);
  return { written, problems };
}

function readIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function syncFolder(dir: string): void {
  // Windows cannot open a folder; NTFS's own journal keeps a created file's name there.
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
