// Directory walk shared by list_files and the grep fallback: skips .git (folder or file) and node_modules, never
// follows symlinked folders (no loops, no escapes from the root), yields in a stable sorted order. Each folder
// is read and entered through the handle of its parent (rootedFs.ts), so a folder swapped for a symlink
// during the walk is skipped rather than followed, and files are opened the same way.
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ResolvedPath } from './pathGuard';
import { openDirInsideRoot } from './rootedFs';
import type { DirHandle } from './rootedFs';
import { ToolError } from './types';

export const SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

export interface WalkEntry {
  /** Relative to the walk's base folder, forward slashes. */
  relToBase: string;
  isSymlink: boolean;
  /** Opens the file for reading without following a symlink; undefined when it is not a regular file (any more). */
  open(): Promise<FileHandle | undefined>;
}

/**
 * Yields the files (and symlinks) under `base` (a real path inside the root, checked by pathGuard), depth
 * first with entries sorted by name and folders entered where they sort — the order of `rg --sort path`,
 * so both grep paths print alike.
 */
export async function* walkFiles(base: Pick<ResolvedPath, 'root' | 'rel'>, signal: AbortSignal): AsyncGenerator<WalkEntry> {
  let dir: DirHandle;
  try {
    dir = await openDirInsideRoot(base.root, base.rel);
  } catch {
    return;
  }
  yield* walkDir(dir, signal, '');
}

async function* walkDir(dir: DirHandle, signal: AbortSignal, rel: string): AsyncGenerator<WalkEntry> {
  try {
    if (signal.aborted) throw new ToolError('Cancelled.');
    let entries;
    try {
      entries = await fsp.readdir(dir.self(), { withFileTypes: true });
    } catch {
      return; // unreadable folder: skip it rather than fail the whole walk
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const entryRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      // In a worktree or a submodule, .git is a file pointing at the repository: as internal as the folder.
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.includes(entry.name)) continue;
        let sub: DirHandle;
        try {
          sub = await dir.sub(entry.name);
        } catch {
          continue; // gone, or swapped for a symlink since it was listed
        }
        yield* walkDir(sub, signal, entryRel);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        const name = entry.name;
        yield { relToBase: entryRel, isSymlink: entry.isSymbolicLink(), open: () => openFileIn(dir, name) };
      }
    }
  } finally {
    await dir.close();
  }
}

async function openFileIn(dir: DirHandle, name: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(dir.child(name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  // Safe to drop: an entry gone since it was listed is skipped.
  const stat = await handle.stat().catch(() => undefined);
  if (stat?.isFile()) return handle;
  await handle.close();
  return undefined;
}
