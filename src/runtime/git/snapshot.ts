// A working tree's current state as a tree object — what `git add -A` would stage: tracked changes,
// deletions and untracked-but-not-ignored files — built in a scratch index so the real one is untouched.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitPath } from './repo';
import { git, gitOk } from './run';

const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;

/**
 * The tree id of `top`'s working state (top: the top folder of a main or linked working tree).
 * `indexFile`: its index when the caller already knows it (saves a git call).
 */
export async function snapshotTree(top: string, indexFile?: string): Promise<string> {
  const realIndex = indexFile ?? (await gitPath(top, 'index'));
  const scratch = path.join(os.tmpdir(), `fork-agents-index-${randomUUID()}`);
  try {
    // Starting from a copy of the real index keeps its stat cache: only files that changed get hashed.
    await fs.copyFile(realIndex, scratch).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    const env = { GIT_INDEX_FILE: scratch };
    await gitOk(top, ['add', '-A', '--', '.'], { env, timeoutMs: SNAPSHOT_TIMEOUT_MS });
    return (await gitOk(top, ['write-tree'], { env })).trim();
  } finally {
    await fs.rm(scratch, { force: true });
  }
}

/** Paths that differ between two trees (`from` undefined: every path of `to`). */
export async function changedPaths(cwd: string, from: string | undefined, to: string): Promise<string[]> {
  const args = from === undefined ? ['ls-tree', '-r', '--name-only', '-z', to] : ['diff-tree', '-r', '--no-renames', '--name-only', '-z', from, to];
  const result = await git(cwd, args);
  return result.code === 0 ? result.stdout.split('\0').filter(Boolean) : [];
}
