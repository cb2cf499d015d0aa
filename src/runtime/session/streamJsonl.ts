// Reads a JSON-lines file as a stream: a session of tens of MB is parsed a chunk at a time, so
// the runtime's event loop keeps serving forks that stream meanwhile. Same rules as readJsonl: a torn last
// line was never committed and is reported, not parsed; an unparsable line is skipped, counted and reported
// by its line number.
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** About a millisecond of parsing per chunk; between chunks the event loop runs whatever waits. */
const CHUNK_BYTES = 64 * 1024;
/** Longest stretch of parsing without a turn of the event loop, whatever the machine's load. */
const SLICE_MS = 2;

export interface StreamReadResult { tornBytes: number; skippedLines: number; bytes: number }

/**
 * `onRecord` gets each record with the byte offset just past its line (where the next line starts), so a
 * sealed segment can name a byte range of the file. It returns a promise only when it must wait (the loader resolving a fork's segments): per
 * record a promise would be garbage and a microtask for each of tens of thousands of lines.
 */
export async function streamJsonl<T>(file: string, onRecord: (record: T, end: number) => void | Promise<void>, onDamaged?: (line: number) => void): Promise<StreamReadResult> {
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  // One string per chunk and slices of it per line: fewer, smaller objects than a Buffer per line.
  // A newline byte never occurs inside a UTF-8 sequence, so lines split the same in text as in bytes.
  const decoder = new StringDecoder('utf8');
  let pending: string[] = [];
  let skippedLines = 0;
  let bytes = 0;
  let tornBytes = 0;
  let lineNumber = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    // Buffered chunks resolve as microtasks, which would starve sockets and timers: yield a whole turn.
    await nextTurn();
    let sliceStart = performance.now();
    const chunkStart = bytes;
    bytes += chunk.length;
    // Each newline of the text is the next newline byte of the chunk: the byte offset where a line ends.
    let byteAt = 0;
    const lastNewline = chunk.lastIndexOf(10);
    tornBytes = lastNewline < 0 ? tornBytes + chunk.length : chunk.length - lastNewline - 1;
    const text = decoder.write(chunk);
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline < 0) {
        // A line longer than a chunk is joined once, when its end arrives (never rescanned per chunk).
        if (start < text.length) pending.push(text.slice(start));
        break;
      }
      let line = text.slice(start, newline);
      if (pending.length > 0) {
        line = pending.join('') + line;
        pending = [];
      }
      start = newline + 1;
      byteAt = chunk.indexOf(10, byteAt) + 1;
      lineNumber++;
      if (line.length === 0) continue;
      let record: T;
      try {
        record = JSON.parse(line) as T;
      } catch {
        if (line.trim() !== '') {
          skippedLines++;
          // In order with the records around it, so the reader knows where in the history the loss is.
          onDamaged?.(lineNumber);
        }
        continue;
      }
      const done = onRecord(record, chunkStart + byteAt);
      if (done) await done;
      if (performance.now() - sliceStart > SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
    }
  }
  return { tornBytes, skippedLines, bytes };
}
