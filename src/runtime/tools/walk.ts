// Directory walk shared by list_files and the grep fallback: skips .git (folder or file) and node_modules, never
// follows symlinked folders (no loops, no escapes from the root), yields in a stable sorted order.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ToolError } from './types';

export const SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

export interface WalkEntry {
  abs: string;
  /** Relative to the walk's base folder, forward slashes. */
  relToBase: string;
  isSymlink: boolean;
}

/**
 * Yields the files (and symlinks) under `base`, depth first with entries sorted by name and folders
 * entered where they sort — the order of `rg --sort path`, so both grep paths print alike.
 */
export async function* walkFiles(base: string, signal: AbortSignal, rel = ''): AsyncGenerator<WalkEntry> {
  if (signal.aborted) throw new ToolError('Cancelled.');
  let entries;
  try {
    entries = await fs.readdir(base, { withFileTypes: true });
  } catch {
    return; // unreadable folder: skip it rather than fail the whole walk
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const abs = path.join(base, entry.name);
    const entryRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    // In a worktree or a submodule, .git is a file pointing at the repository: as internal as the folder.
    if (entry.name === '.git') continue;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.includes(entry.name)) yield* walkFiles(abs, signal, entryRel);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      yield { abs, relToBase: entryRel, isSymlink: entry.isSymbolicLink() };
    }
  }
}
