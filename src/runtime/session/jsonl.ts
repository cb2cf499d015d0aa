// Append-only JSON-lines files. A record is committed once its line and newline are on disk;
// a torn last line (a crash mid-write) was never committed and is cut off on load.
import * as fs from 'node:fs';
import { openPrivateFile } from '../../ipc/privateFs';

export interface JsonlReadResult<T> { records: T[]; tornBytes: number; skippedLines: number }

export function readJsonl<T>(file: string): JsonlReadResult<T> {
  const text = fs.readFileSync(file, 'utf8');
  const lastNewline = text.lastIndexOf('\n');
  const complete = text.slice(0, lastNewline + 1);
  const tail = text.slice(lastNewline + 1);
  const records: T[] = [];
  let skippedLines = 0;
  for (const line of complete.split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      skippedLines++;
    }
  }
  return { records, tornBytes: Buffer.byteLength(tail, 'utf8'), skippedLines };
}

/** Cuts an uncommitted torn tail so the next append starts on a fresh line. */
export function dropTornTail(file: string, tornBytes: number): void {
  if (tornBytes <= 0) return;
  const size = fs.statSync(file).size;
  fs.truncateSync(file, size - tornBytes);
}

/** A record could not be written (full disk, I/O error): nothing of it stays in the file. */
export class TranscriptWriteError extends Error {
  constructor(readonly file: string, override readonly cause: unknown) {
    const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : undefined;
    const why = code === 'ENOSPC' ? 'the disk is full' : code === 'EDQUOT' ? 'the disk quota is exceeded' : cause instanceof Error ? cause.message : String(cause);
    super(`Could not save to the transcript ${file}: ${why}${code ? ` (${code})` : ''}. The last step was not saved; free some space and try again.`);
  }
}

export class JsonlWriter {
  private fd: number | undefined;
  /** Bytes of complete records in the file: where the next record starts, and what a failed write is cut back to. */
  private committedBytes: number;
  /** Bytes an fdatasync has made durable. */
  private flushedBytes: number;
  /** The descriptor the flushes use; it outlives close() until the last flush is done. */
  private readonly flushFd: number;
  private flushing = false;
  private flushAgain = false;
  private flushError: unknown;
  private waiters: { upTo: number; resolve(): void; reject(error: unknown): void }[] = [];

  constructor(readonly file: string) {
    // Transcripts hold code and pasted secrets: 0600 from creation.
    this.fd = openPrivateFile(file, 'a');
    this.flushFd = this.fd;
    this.committedBytes = fs.fstatSync(this.fd).size;
    this.flushedBytes = this.committedBytes;
  }

  /**
   * Writes one record as one line into the file at once (the page cache: a crash of this process loses
   * nothing of it) and starts its flush to disk on libuv's thread pool; `durable()` says when it is there.
   * Records appended while a flush runs share the next one — a group commit — so the runtime's only thread
   * never waits for the disk, however many sessions write at once (fifty forks of one chat, say). The agent
   * loop awaits `durable()` before each next step (docs/design.md §3). writeSync may write only part of the
   * buffer (a disk filling up): the rest is written in a loop. When a write fails the file is cut back to the
   * last complete record, so a fragment never glues itself to the next line, and TranscriptWriteError is
   * thrown: the caller fails that step, the writer stays usable. A failed flush fails every later append. Returns the bytes appended (a chat
   * hashes them as it goes: sealed ranges are not read back).
   */
  append(record: unknown): Buffer {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`);
    if (this.flushError !== undefined) throw new TranscriptWriteError(this.file, this.flushError);
    const bytes = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
    try {
      for (let written = 0; written < bytes.length;) {
        const n = fs.writeSync(this.fd, bytes, written, bytes.length - written);
        if (n <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
        written += n;
      }
    } catch (error) {
      this.cutBack();
      throw new TranscriptWriteError(this.file, error);
    }
    this.committedBytes += bytes.length;
    this.scheduleFlush();
    return bytes;
  }

  /** Settles once every record appended so far is on disk; rejects with TranscriptWriteError when a flush failed. */
  durable(): Promise<void> {
    if (this.flushError !== undefined) return Promise.reject(new TranscriptWriteError(this.file, this.flushError));
    if (this.flushedBytes >= this.committedBytes) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ upTo: this.committedBytes, resolve, reject }));
  }

  private scheduleFlush(): void {
    if (this.flushing) this.flushAgain = true;
    else this.startFlush();
  }

  private startFlush(): void {
    const upTo = this.committedBytes;
    this.flushing = true;
    this.flushAgain = false;
    fs.fdatasync(this.flushFd, error => {
      this.flushing = false;
      if (error) this.flushError ??= error;
      else this.flushedBytes = Math.max(this.flushedBytes, upTo);
      this.settleWaiters();
      if (this.flushAgain && this.flushError === undefined) this.startFlush();
      // Closed after the last flush: the data is synced (or its error kept in flushError), so a failed close loses nothing.
      else if (this.fd === undefined) fs.close(this.flushFd, () => undefined);
    });
  }

  private settleWaiters(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (this.flushError !== undefined) waiter.reject(new TranscriptWriteError(this.file, this.flushError));
      else if (waiter.upTo <= this.flushedBytes) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private cutBack(): void {
    try {
      fs.ftruncateSync(this.fd!, this.committedBytes);
    } catch {
      // Cannot even shrink the file: stop writing to it. Loading cuts the torn tail (readJsonl), so the
      // fragment is never read as a record; later appends fail instead of landing after it.
      this.close();
    }
  }

  /** No more appends; the descriptor closes once the last flush is done (a flush in flight keeps it). */
  close(): void {
    if (this.fd === undefined) return;
    this.fd = undefined;
    if (!this.flushing) fs.closeSync(this.flushFd);
  }
}
