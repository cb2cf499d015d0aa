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

  constructor(readonly file: string) {
    // Transcripts hold code and pasted secrets: 0600 from creation.
    this.fd = openPrivateFile(file, 'a');
    this.committedBytes = fs.fstatSync(this.fd).size;
  }

  /**
   * Writes one record as one line and flushes it to disk before returning. writeSync may write only part
   * of the buffer (a disk filling up): the rest is written in a loop. When a write or the flush fails the
   * file is cut back to the last complete record, so a fragment never glues itself to the next line, and
   * TranscriptWriteError is thrown: the caller fails that step, the writer stays usable. Returns the
   * bytes appended (a chat hashes them as it goes: sealed ranges are not read back).
   */
  append(record: unknown): Buffer {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`);
    const bytes = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
    try {
      for (let written = 0; written < bytes.length;) {
        const n = fs.writeSync(this.fd, bytes, written, bytes.length - written);
        if (n <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
        written += n;
      }
      fs.fdatasyncSync(this.fd);
    } catch (error) {
      this.cutBack();
      throw new TranscriptWriteError(this.file, error);
    }
    this.committedBytes += bytes.length;
    return bytes;
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

  close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
