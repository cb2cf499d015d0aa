// A new file written now and flushed on libuv's thread pool: the caller gets the bytes in the page cache
// at once and a promise that settles when fdatasync has made them durable. The runtime's only JavaScript
// thread never waits for the disk, and files created together (siblings started at once) flush in
// parallel — the file system's journal commits them together, a group commit for free (ARCHITECTURE.md,
// "What a started fork promises").
import * as fs from 'node:fs';
import { openPrivateFile } from '../../ipc/privateFs';

/** Writes `bytes` as the whole of a new file (`wx`); the promise resolves once they are on disk. Write errors throw now. */
export function writeThenFlushOffThread(file: string, bytes: Buffer): Promise<void> {
  const fd = openPrivateFile(file, 'wx');
  try {
    for (let offset = 0; offset < bytes.length;) {
      const n = fs.writeSync(fd, bytes, offset, bytes.length - offset);
      if (n <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
      offset += n;
    }
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return new Promise((resolve, reject) => {
    fs.fdatasync(fd, flushError => fs.close(fd, closeError => {
      const error = flushError ?? closeError;
      if (error) reject(error);
      else resolve();
    }));
  });
}
