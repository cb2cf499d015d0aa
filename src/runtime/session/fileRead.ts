// A bounded synchronous read of one store file, for the few reads that must not queue on the thread pool.
import * as fs from 'node:fs';

/**
 * `read(fd)` on `file` opened read-only, closed afterwards. Undefined when the file cannot be opened or read
 * (gone, not ours, damaged): the callers then take the ordinary load, which reports what is wrong with it.
 */
export function readOpenFile<T>(file: string, read: (fd: number) => T | undefined): T | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return read(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
