// A new file created, written and flushed on libuv's thread pool, and its name in its folder flushed too:
// the promise settles once both are durable — a power loss after that keeps the file and its bytes
// (docs/design.md §4.7, "What a started fork promises" in ARCHITECTURE.md). The runtime's only JavaScript
// thread never waits for the disk: creating a file in a folder can wait for the file system's journal
// while other flushes commit (4–72 ms seen with fifty siblings started together, docs/benchmarks.md), so
// not even the open runs on it. Files created together flush in parallel (the journal commits them
// together), and one folder fsync covers every file whose flush ended before it began: a group commit.
import * as fs from 'node:fs';

/**
 * Writes `bytes` as the whole of a new file (`wx`, mode 0600); resolves once the bytes (fdatasync) and
 * the file's name in `folder` (fsync of the folder) are on disk. Rejects with the error of the step that
 * failed (EEXIST, ENOSPC, EIO); `created` says whether the file was made (and may be removed).
 */
export function writeThenFlushOffThread(file: string, bytes: Buffer, folder: FolderSync): Promise<void> {
  const { flushed } = createThenFlushOffThread(file, bytes, folder);
  return flushed;
}

/**
 * As writeThenFlushOffThread, and says when the file is whole in the page cache (`written`: created and
 * every byte written, not yet flushed), so a caller whose durability lies elsewhere (the start journal,
 * startJournal.ts) need not wait for the file's own flush. `written` rejects as `flushed` does when the
 * create or a write fails. `pieces`: the file's bytes, joined once it begins; `begin`: nothing starts before
 * it settles (its outcome is ignored); `wanted`: asked then, false makes nothing and settles both at once.
 */
export function createThenFlushOffThread(file: string, pieces: Buffer | readonly Buffer[], folder: FolderSync, begin?: Promise<unknown>, wanted?: () => boolean): { written: Promise<void>; flushed: Promise<void> } {
  let signal!: { resolve(): void; reject(error: unknown): void };
  const written = new Promise<void>((resolve, reject) => (signal = { resolve, reject }));
  const flushed = (async () => {
    // Begun once `begin` settles, else in the event loop's next turn: the caller answers first (a fork's
    // start is answered once its journal frame is written), and the open's own set-up on this thread is
    // not in its way.
    await (begin ?? new Promise(resolve => setImmediate(resolve))).catch(() => undefined);
    // Deleted meanwhile (`wanted` says no): there is nothing to make, and no file may appear after the delete.
    if (wanted && !wanted()) return signal.resolve();
    const bytes = Buffer.isBuffer(pieces) ? pieces : Buffer.concat(pieces);
    const handle = await fs.promises.open(file, 'wx', 0o600).catch((error: unknown) => {
      throw Object.assign(error as Error, { created: false });
    });
    try {
      for (let offset = 0; offset < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        if (bytesWritten <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
        offset += bytesWritten;
      }
      signal.resolve();
      await handle.datasync();
    } catch (error) {
      throw Object.assign(error as Error, { created: true });
    } finally {
      await handle.close();
    }
    // After the file's own flush, not beside it: on a journalling file system (ext4, xfs) that flush has
    // committed the name with the file, and the folder's fsync finds nothing left to write; run beside it,
    // each folder fsync forced a commit of its own (fifty siblings' answers came in waves, 100 ms apart).
    await folder.sync().catch((error: unknown) => {
      throw Object.assign(error as Error, { created: true });
    });
  })();
  // A create or write that failed rejects `written` too (a no-op once it resolved).
  flushed.catch((error: unknown) => signal.reject(error));
  // Handled here: a caller may await only one of the two.
  written.catch(() => undefined);
  return { written, flushed };
}

/**
 * fsyncs one folder on the thread pool, shared by every caller that arrives while one runs: `sync()`
 * resolves after an fsync that began after the call, so entries made before it are durable.
 */
export class FolderSync {
  private running?: Promise<void>;
  private next?: Promise<void>;

  constructor(private readonly folder: string) {}

  sync(): Promise<void> {
    if (!this.running) {
      const run = fsyncFolder(this.folder).finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      return run;
    }
    // One fsync is under way and may have begun before the caller's entry: the next one covers it,
    // and every caller meanwhile shares that one.
    this.next ??= this.running.then(this.startNext, this.startNext);
    return this.next;
  }

  private readonly startNext = (): Promise<void> => {
    this.next = undefined;
    return this.sync();
  };
}

async function fsyncFolder(folder: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(folder, 'r');
  } catch (error) {
    // Windows cannot open a folder as a file; there a created file's name is kept by NTFS's own journal.
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Some file systems cannot fsync a folder (EINVAL): their folder entries are written synchronously.
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    await handle.close();
  }
}
