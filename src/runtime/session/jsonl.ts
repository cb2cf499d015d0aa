// Append-only JSON-lines files. A record is committed once its line and newline are on disk;
// a torn last line (a crash mid-write) was never committed and is cut off on load.
import * as fs from 'node:fs';
import { openPrivateFile } from '../ipc/privateFs';

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

export class JsonlWriter {
  private fd: number | undefined;

  constructor(readonly file: string) {
    // Transcripts hold code and pasted secrets: 0600 from creation (issue 11).
    this.fd = openPrivateFile(file, 'a');
  }

  /** Writes one record as one line and flushes it to disk before returning. */
  append(record: unknown): void {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`);
    const line = JSON.stringify(record) + '\n';
    fs.writeSync(this.fd, line);
    fs.fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
