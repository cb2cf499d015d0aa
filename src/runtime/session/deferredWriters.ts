// Session writers that do not open the file at once: one for a fork whose file is still being made on the
// thread pool (its bytes are safe in the start journal meanwhile), one for a session that is only read
// until it is used. Both stand in for the JsonlWriter the session appends to.
import { JsonlWriter, TranscriptWriteError } from './jsonl';

/**
 * The writer of a fork whose file is still being created on the thread pool (its bytes are safe in the
 * start journal meanwhile): records appended before it is written (a cancel at once, say) are kept in
 * order and appended once it is, and durable() waits for them. A file that could not be made fails them.
 */
export function writerAfter(file: string, written: Promise<void>, open: () => JsonlWriter): JsonlWriter {
  let writer: JsonlWriter | undefined;
  let ready = false;
  let closed = false;
  let failure: unknown;
  const queued: unknown[] = [];
  const settled = written.then(() => {
    ready = true;
    if (queued.length === 0) return;
    writer = open();
    for (const record of queued.splice(0)) writer.append(record);
    if (closed) writer.close();
  }).catch((error: unknown) => {
    failure = error;
  });
  return {
    append(record: unknown) {
      if (closed) throw new Error('session is closed');
      if (failure !== undefined) throw new TranscriptWriteError(file, failure);
      if (ready) return (writer ??= open()).append(record);
      queued.push(record);
      return Buffer.from(JSON.stringify(record) + '\n', 'utf8');
    },
    async durable() {
      await settled;
      if (failure !== undefined) throw new TranscriptWriteError(file, failure);
      await writer?.durable();
    },
    close() {
      closed = true;
      if (ready) writer?.close();
    },
  } as JsonlWriter;
}

/** A writer opened on first append: loading a session writes nothing until it is used. */
export function lazyWriter(open: () => JsonlWriter): JsonlWriter {
  let writer: JsonlWriter | undefined;
  let closed = false;
  return {
    append(record: unknown) {
      if (closed) throw new Error('session is closed');
      return (writer ??= open()).append(record);
    },
    durable() {
      return writer?.durable() ?? Promise.resolve();
    },
    close() {
      closed = true;
      writer?.close();
    },
  } as JsonlWriter;
}
