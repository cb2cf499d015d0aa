// File access that cannot be redirected out of the session root between the check and the use.
//
// pathGuard.ts decides what a path means: its real path inside the root, every in-root symlink resolved.
// Checking that and then opening the path string would be racy: a folder swapped for a symlink in
// between sends the open elsewhere. So the open does not use the path string. It starts from a handle on
// the root and takes the checked real path one name at a time, each relative to the folder handle opened
// by the step before, refusing a symlink at every step (O_NOFOLLOW) — the openat() walk of Go's os.Root
// and Rust's cap-std.
//
// Node has no openat(). On Linux `/proc/self/fd/<fd>/<name>` is the same thing: the kernel resolves the
// `/proc/self/fd/<fd>` magic link to the open folder itself (not to its path text, so a rename or swap of
// any ancestor is irrelevant) and then looks up `<name>` in it; O_NOFOLLOW applies to `<name>`. Because
// the real path has no symlinks, any symlink met on the way was swapped in after the check: the call is
// refused with "changed while being opened". What remains possible is moving an already opened folder out
// of the root; a process able to do that can already write outside the root itself. Still, before a
// write is committed (the rename) and after a read opens, the handle's current path is checked to be
// inside the root.
//
// Writes go to a new temporary file in the same folder, then rename over the target: a
// hard link to a file outside the root is replaced by a new file, never written through.
//
// Elsewhere (macOS, Windows) there is no /proc: the last name is still opened with O_NOFOLLOW and writes
// still replace, but the folders on the way are walked by path, which is not race-free.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode, fsToolError } from './fsErrors';
import { ToolError } from './types';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;

/** Whether folders can be opened relative to a handle (Linux /proc magic links). */
export const HANDLE_RELATIVE = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

/** An open folder inside the root, named by what `/proc` makes of its handle (or its path elsewhere). */
export class DirHandle {
  private constructor(private readonly handle: FileHandle | undefined, private readonly dirPath: string) {}

  static async open(dirPath: string): Promise<DirHandle> {
    if (!HANDLE_RELATIVE) return new DirHandle(undefined, dirPath);
    return new DirHandle(await fsp.open(dirPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), dirPath);
  }

  /** A path that names `name` inside this very folder, whatever happened to the folder's path since. */
  child(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw new ToolError(`Bad file name ${JSON.stringify(name)}.`);
    return this.handle ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.dirPath, name);
  }

  /** A path naming this folder itself (for readdir). */
  self(): string {
    return this.handle ? `/proc/self/fd/${this.handle.fd}` : this.dirPath;
  }

  /** Opens the sub-folder `name` without following a symlink; `create` makes it when missing. */
  async sub(name: string, create = false): Promise<DirHandle> {
    const target = this.child(name);
    const open = async () => new DirHandle(HANDLE_RELATIVE ? await fsp.open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : undefined, path.join(this.dirPath, name));
    try {
      if (!HANDLE_RELATIVE) {
        const stat = await fsp.lstat(target);
        if (!stat.isDirectory()) throw Object.assign(new Error('not a folder'), { code: stat.isSymbolicLink() ? 'ELOOP' : 'ENOTDIR' });
      }
      return await open();
    } catch (error) {
      if (create && errorCode(error) === 'ENOENT') {
        await fsp.mkdir(target).catch((mkdirError: unknown) => {
          if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
        });
        return this.sub(name, false);
      }
      throw error;
    }
  }

  /** The folder's current real path (where /proc says the handle is now). */
  async currentPath(): Promise<string> {
    return this.handle ? fsp.readlink(this.self()) : fsp.realpath(this.dirPath);
  }

  async close(): Promise<void> {
    // Safe to drop: closing a handle whose folder is gone: nothing is left open either way.
    await this.handle?.close().catch(() => undefined);
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function changed(rel: string): ToolError {
  return new ToolError(`${rel} changed while it was being opened (a folder or file on the way became a symbolic link); nothing was done. Try again.`);
}

/** Maps the errors of a no-follow walk: a symlink met on the way means the tree changed after the check. */
function walkError(error: unknown, rel: string): ToolError {
  if (error instanceof ToolError) return error;
  const code = errorCode(error);
  if (code === 'ELOOP' || code === 'EMLINK') return changed(rel);
  return fsToolError(error, rel);
}

/**
 * Opens the folder that holds root-relative `rel` (as pathGuard returned it: real, no `..`), walking from
 * the root. Returns the folder and the last name. `create`: missing folders are made on the way.
 */
export async function openParent(realRoot: string, rel: string, create: boolean): Promise<{ dir: DirHandle; name: string }> {
  const parts = rel.split('/').filter(part => part !== '' && part !== '.');
  const name = parts.pop();
  if (name === undefined || parts.includes('..') || name === '..') throw new ToolError(`${rel} is not a file path inside the workspace root.`);
  let dir = await DirHandle.open(realRoot).catch(error => {
    throw new ToolError(`The session root ${realRoot} is not accessible: ${(error as Error).message}`);
  });
  try {
    for (const part of parts) {
      const next = await dir.sub(part, create);
      await dir.close();
      dir = next;
    }
  } catch (error) {
    await dir.close();
    throw walkError(error, rel);
  }
  return { dir, name };
}

async function assertInside(dir: DirHandle, realRoot: string, rel: string): Promise<void> {
  // Safe to drop: a folder whose path cannot be read is treated as moved: the check below refuses it.
  const now = await dir.currentPath().catch(() => undefined);
  if (now === undefined || !isInside(realRoot, now)) throw changed(rel);
}

/** Opens a regular file inside the root for reading; refuses folders, devices and symlinks swapped in. */
export async function openForRead(realRoot: string, rel: string, what: { folderHint: string }): Promise<FileHandle> {
  const { dir, name } = await openParent(realRoot, rel, false);
  try {
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO swapped in must not hang the open; regular files ignore it.
      handle = await fsp.open(dir.child(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      if (errorCode(error) === 'EISDIR') throw new ToolError(`${rel} is a directory, not a file; ${what.folderHint}`);
      throw walkError(error, rel);
    }
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw new ToolError(stat.isDirectory() ? `${rel} is a directory, not a file; ${what.folderHint}` : `${rel} is not a regular file.`);
    }
    try {
      await assertInside(dir, realRoot, rel);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  } finally {
    await dir.close();
  }
}

export async function readInsideRoot(realRoot: string, rel: string, folderHint: string): Promise<Buffer> {
  const handle = await openForRead(realRoot, rel, { folderHint });
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` as the file `rel` inside the root: a temporary file in the same folder, flushed, then
 * renamed over the target. Keeps an existing file's permission bits. Returns whether the file existed.
 */
export async function writeInsideRoot(realRoot: string, rel: string, content: string | Buffer, options: { createFolders: boolean }): Promise<{ existed: boolean }> {
  const { dir, name } = await openParent(realRoot, rel, options.createFolders);
  try {
    let mode = 0o666;
    let existed = false;
    try {
      const stat = await fsp.lstat(dir.child(name));
      if (stat.isSymbolicLink()) throw changed(rel);
      if (stat.isDirectory()) throw new ToolError(`${rel} is a directory; give a file path to write.`);
      if (!stat.isFile()) throw new ToolError(`${rel} is not a regular file.`);
      existed = true;
      mode = stat.mode & 0o7777;
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (errorCode(error) !== 'ENOENT') throw walkError(error, rel);
    }
    const temp = `.${name.slice(0, 100)}.fork-agents-${randomBytes(6).toString('hex')}.tmp`;
    const tempPath = dir.child(temp);
    try {
      const handle = await fsp.open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
      try {
        await handle.writeFile(content); // loops until every byte is written or throws (ENOSPC)
        if (existed) await handle.chmod(mode); // the umask narrowed the mode given to open
        await handle.sync();
      } finally {
        await handle.close();
      }
      await assertInside(dir, realRoot, rel);
      await fsp.rename(tempPath, dir.child(name));
    } catch (error) {
      // Safe to drop: removing the temp file after a failed write: the write's error is rethrown below.
      await fsp.unlink(tempPath).catch(() => undefined);
      throw walkError(error, rel);
    }
    return { existed };
  } finally {
    await dir.close();
  }
}

/** Opens the folder `rel` (root-relative, from pathGuard) by the same no-follow walk. */
export async function openDirInsideRoot(realRoot: string, rel: string): Promise<DirHandle> {
  if (rel === '.' || rel === '') return DirHandle.open(realRoot);
  const { dir, name } = await openParent(realRoot, rel, false);
  try {
    return await dir.sub(name);
  } catch (error) {
    throw walkError(error, rel);
  } finally {
    await dir.close();
  }
}
