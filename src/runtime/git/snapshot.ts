// A working tree's current state as a tree object — what `git add -A` would stage: tracked changes,
// deletions and untracked-but-not-ignored files — built in a scratch index so the real one is untouched.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitPath } from './repo';
import { git, gitOk } from './run';

const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;
const SCRATCH_PREFIX = 'fork-agents-index-';

/** Scratch index folders of this user's runtimes that are gone (killed mid-snapshot); live ones stay. */
export async function removeScratchLeftovers(): Promise<number> {
  const stale = await scratchLeftovers();
  for (const full of stale) await fs.rm(full, { recursive: true, force: true });
  return stale.length;
}

/** This user's scratch index folders (and older runtimes' bare index files) whose runtime is gone. */
export async function scratchLeftovers(): Promise<string[]> {
  const found: string[] = [];
  const uid = process.getuid?.();
  for (const name of await fs.readdir(os.tmpdir()).catch(() => [] as string[])) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const full = path.join(os.tmpdir(), name);
    // Removed meanwhile (by its own runtime or another's sweep): nothing left to sweep.
    const stat = await fs.lstat(full).catch(() => undefined);
    if (!stat || (uid !== undefined && stat.uid !== uid)) continue;
    const pid = Number(/^fork-agents-index-(\d+)-/.exec(name)?.[1]);
    // Older runtimes wrote a bare index file named by a uuid: gone once older than any snapshot can take.
    const stale = stat.isDirectory() ? pid > 0 && !isRunning(pid) : stat.isFile() && Date.now() - stat.mtimeMs > SNAPSHOT_TIMEOUT_MS;
    if (stale) found.push(full);
  }
  return found;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The tree id of `top`'s working state (top: the top folder of a main or linked working tree).
 * `indexFile`: its index when the caller already knows it (saves a git call).
 */
export async function snapshotTree(top: string, indexFile?: string): Promise<string> {
  const realIndex = indexFile ?? (await gitPath(top, 'index'));
  // In a 0700 folder of its own (the index lists every path and blob of the tree); named with our pid so a
  // runtime killed mid-snapshot leaves a folder the next start removes (removeScratchLeftovers).
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  const scratch = path.join(folder, 'index');
  try {
    // Starting from a copy of the real index keeps its stat cache: only files that changed get hashed.
    await fs.copyFile(realIndex, scratch).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    const env = { GIT_INDEX_FILE: scratch };
    await gitOk(top, ['add', '-A', '--', '.'], { env, timeoutMs: SNAPSHOT_TIMEOUT_MS });
    return (await gitOk(top, ['write-tree'], { env })).trim();
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Paths that differ between two trees (`from` undefined: every path of `to`). */
export async function changedPaths(cwd: string, from: string | undefined, to: string): Promise<string[]> {
  const args = from === undefined ? ['ls-tree', '-r', '--name-only', '-z', to] : ['diff-tree', '-r', '--no-renames', '--name-only', '-z', from, to];
  const result = await git(cwd, args);
  return result.code === 0 ? result.stdout.split('\0').filter(Boolean) : [];
}
