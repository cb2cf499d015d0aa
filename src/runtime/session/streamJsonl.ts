// Reads a JSON-lines file as a stream (issue 15): a session of tens of MB is parsed a chunk at a time, so
// the runtime's event loop keeps serving forks that stream meanwhile. Same rules as readJsonl: a torn last
// line was never committed and is reported, not parsed; an unparsable line is skipped and counted.
import * as fs from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** About a millisecond of parsing per chunk; between chunks the event loop runs whatever waits. */
const CHUNK_BYTES = 64 * 1024;

export interface StreamReadResult { tornBytes: number; skippedLines: number; bytes: number }

export async function streamJsonl<T>(file: string, onRecord: (record: T) => void | Promise<void>): Promise<StreamReadResult> {
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  let pending: Buffer[] = [];
  let skippedLines = 0;
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    // Buffered chunks resolve as microtasks, which would starve sockets and timers: yield a whole turn.
    await nextTurn();
    bytes += chunk.length;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline < 0) {
        if (start < chunk.length) pending.push(chunk.subarray(start));
        break;
      }
      let line = chunk.subarray(start, newline);
      if (pending.length > 0) {
        line = Buffer.concat([...pending, line]);
        pending = [];
      }
      start = newline + 1;
      const text = line.toString('utf8');
      if (text.trim() === '') continue;
      let record: T;
      try {
        record = JSON.parse(text) as T;
      } catch {
        skippedLines++;
        continue;
      }
      const done = onRecord(record);
      if (done) await done;
    }
  }
  return { tornBytes: pending.reduce((n, b) => n + b.length, 0), skippedLines, bytes };
}
