// What the runtime knows about one of its fork worktrees, kept in git's admin folder of that worktree
// (<common git dir>/worktrees/<name>/fork-agents.json): it goes away with the worktree, and start-up
// pruning finds it even when the fork's session is gone.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pinnedGitDir } from './run';

export const META_FILE = 'fork-agents.json';

export interface WorktreeMeta {
  version: 1;
  forkId: string;
  branch: string;
  base: string;
  parentHead?: string;
  repoRoot: string;
  /** The store of the runtime that created it: pruning leaves other stores' worktrees alone. */
  owner?: string;
  createdAt: string;
  /** The worktree's state tree when it was last applied to the main working tree. */
  appliedTree?: string;
  appliedAt?: string;
  keptAt?: string;
}

/**
 * A fork worktree's admin folder: the pinned one (recorded at creation, run.ts); else, for records made
 * before pinning, the entry of the main repository's `worktrees/` folder whose `gitdir` names this worktree.
 * The worktree's own `.git` file is read only for worktrees that are neither (not a fork's).
 */
export function adminDirOf(worktreePath: string, repoRoot?: string): string | undefined {
  const pinned = pinnedGitDir(worktreePath);
  if (pinned) return pinned;
  if (repoRoot) return findAdminDir(repoRoot, worktreePath);
  try {
    const text = readFileSync(path.join(worktreePath, '.git'), 'utf8');
    const match = /^gitdir: (.+)$/m.exec(text);
    return match ? path.resolve(worktreePath, match[1].trim()) : undefined;
  } catch {
    return undefined;
  }
}

/** Looks the worktree up from the main repository's side (its `.git/worktrees/*\/gitdir` files). */
export function findAdminDir(repoRoot: string, worktreePath: string): string | undefined {
  const dir = path.join(repoRoot, '.git', 'worktrees');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const wanted = path.join(path.resolve(worktreePath), '.git');
  for (const name of names) {
    try {
      if (path.resolve(dir, name, readFileSync(path.join(dir, name, 'gitdir'), 'utf8').trim()) === wanted) return path.join(dir, name);
    } catch {
      // not a worktree entry
    }
  }
  return undefined;
}

export function readWorktreeMeta(worktreePath: string): WorktreeMeta | undefined {
  const admin = adminDirOf(worktreePath);
  return admin ? readMetaIn(admin) : undefined;
}

function readMetaIn(adminDir: string): WorktreeMeta | undefined {
  try {
    const meta = JSON.parse(readFileSync(path.join(adminDir, META_FILE), 'utf8')) as WorktreeMeta;
    return meta.version === 1 && typeof meta.forkId === 'string' ? meta : undefined;
  } catch {
    return undefined;
  }
}

export async function writeWorktreeMeta(worktreePath: string, meta: WorktreeMeta): Promise<void> {
  const admin = adminDirOf(worktreePath);
  if (!admin) throw new Error(`${worktreePath} is not a linked worktree`);
  await fs.writeFile(path.join(admin, META_FILE), JSON.stringify(meta, null, 2) + '\n');
}

export async function updateWorktreeMeta(worktreePath: string, patch: Partial<WorktreeMeta>): Promise<void> {
  const meta = readWorktreeMeta(worktreePath);
  if (meta) await writeWorktreeMeta(worktreePath, { ...meta, ...patch });
}

export interface FoundWorktree { adminDir: string; path: string; exists: boolean; meta: WorktreeMeta }

/** Every worktree of the repository that the runtime created (has our metadata), folder present or not. */
export function findForkWorktrees(commonDir: string): FoundWorktree[] {
  const dir = path.join(commonDir, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: FoundWorktree[] = [];
  for (const name of names) {
    const adminDir = path.join(dir, name);
    const meta = readMetaIn(adminDir);
    if (!meta) continue;
    let gitFile: string;
    try {
      gitFile = readFileSync(path.join(adminDir, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    const worktreePath = path.dirname(path.resolve(adminDir, gitFile));
    found.push({ adminDir, path: worktreePath, exists: existsSync(worktreePath), meta });
  }
  return found;
}
