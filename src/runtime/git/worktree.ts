// A fork's own git worktree (docs/design.md §4.8), once created (createWorktree.ts): listed, kept, or discarded
// without a trace. Also the naming rules of fork branches and folders.
import { existsSync, realpathSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ForkWorktree } from '../../common/forks';
import { changedPaths, snapshotTree } from './snapshot';
import { commitTree, treeOf } from './repo';
import { git, gitOk } from './run';
import { gitStatus } from './status';
import type { GitStatus } from './status';
import { readWorktreeMeta, updateWorktreeMeta } from './worktreeMeta';

export const WORKTREES_FOLDER = '.fork-agents-worktrees';
export const CHECKOUT_TIMEOUT_MS = 10 * 60_000;
const FORK_BRANCH = /^fork\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Refusals the user can act on (not a repository, a worktree root inside the repository, …). */
export class WorktreeError extends Error {
  constructor(message: string, readonly reason: 'not-a-repo' | 'bad-root' | 'not-ours' | 'failed') {
    super(message);
  }
}

export function notARepoMessage(root: string): string {
  return `Worktree isolation needs a git repository; ${root} is not inside one. Use isolation "shared" to let the fork work in place.`;
}

/** A branch-safe slug: lower-case letters and digits joined by single dashes, never empty. */
export function slugify(text: string): string {
  const slug = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32).replace(/-+$/, '');
  return slug || 'fork';
}

/** The first 8 hex digits of a fork id (`f-<uuid>`). */
export function shortForkId(id: string): string {
  return id.replace(/^f-/, '').replace(/[^0-9a-f]/gi, '').slice(0, 8).toLowerCase() || 'x';
}

export function isForkBranch(name: string): boolean {
  return FORK_BRANCH.test(name);
}

/** `<parent of repo>/.fork-agents-worktrees/<repo name>`: beside the repository, never inside it. */
export function defaultWorktreeRoot(repoTop: string): string {
  return path.join(path.dirname(repoTop), WORKTREES_FOLDER, path.basename(repoTop));
}

export interface WorktreeEntry { path: string; head?: string; branch?: string; main: boolean; prunable: boolean }

/** `git worktree list --porcelain -z`, the main working tree first. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[]> {
  const stdout = await gitOk(cwd, ['worktree', 'list', '--porcelain', '-z']);
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  for (const field of stdout.split('\0')) {
    if (field === '') {
      current = undefined;
      continue;
    }
    const [key, ...rest] = field.split(' ');
    const value = rest.join(' ');
    if (key === 'worktree') {
      current = { path: value, main: entries.length === 0, prunable: false };
      entries.push(current);
    } else if (current && key === 'HEAD') current.head = value;
    else if (current && key === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
    else if (current && key === 'prunable') current.prunable = true;
  }
  return entries;
}

export interface WorktreeStatus extends Partial<GitStatus> { exists: boolean }

export async function worktreeStatus(worktreePath: string): Promise<WorktreeStatus> {
  if (!existsSync(worktreePath)) return { exists: false };
  const status = await gitStatus(worktreePath);
  return status ? { exists: true, ...status } : { exists: false };
}

/**
 * Removes a fork's worktree, its branch (unless `keepBranch`: a branch the user kept) and its folder.
 * Refuses anything that is not one of our fork worktrees: this deletes a folder tree, so it must never
 * reach the main working tree or a user branch.
 */
export async function discardForkWorktree(worktree: Pick<ForkWorktree, 'repoRoot' | 'path' | 'branch'>, options: { keepBranch?: boolean } = {}): Promise<void> {
  if (!isForkBranch(worktree.branch)) throw new WorktreeError(`${worktree.branch} is not a fork branch; not deleting it.`, 'not-ours');
  const top = worktree.repoRoot;
  if (existsSync(worktree.path)) {
    const listed = (await listWorktrees(top)).find(entry => samePath(entry.path, worktree.path));
    if (!listed || listed.main) throw new WorktreeError(`${worktree.path} is not a linked worktree of ${top}; not removing it.`, 'not-ours');
    const removed = await git(top, ['worktree', 'remove', '--force', '--force', '--', worktree.path], { timeoutMs: CHECKOUT_TIMEOUT_MS });
    // A worktree git cannot remove (files in use, a broken admin folder) is still ours to delete.
    if (removed.code !== 0) await fs.rm(worktree.path, { recursive: true, force: true });
  }
  await git(top, ['worktree', 'prune']);
  if (!options.keepBranch) {
    const branch = await git(top, ['branch', '-D', '--', worktree.branch]);
    if (branch.code !== 0 && !/not found/i.test(branch.stderr)) throw new WorktreeError(`Could not delete branch ${worktree.branch}: ${branch.stderr.trim()}`, 'failed');
  }
  await removeEmptyParents(worktree.path);
}

/** The folder of one repository's worktrees, then the shared `.fork-agents-worktrees`, once empty. */
async function removeEmptyParents(worktreePath: string): Promise<void> {
  let dir = path.dirname(worktreePath);
  for (let i = 0; i < 2; i++) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
    if (path.basename(dir) === WORKTREES_FOLDER) return;
    dir = path.dirname(dir);
    if (path.basename(dir) !== WORKTREES_FOLDER) return;
  }
}

/**
 * Keeps a fork's work on its branch: commits the worktree's current state (when it differs from the
 * branch tip) so the branch outlives the worktree; nothing is removed. Returns the branch's tip.
 */
export async function keepForkBranch(worktree: Pick<ForkWorktree, 'path' | 'branch'>, name: string): Promise<string> {
  if (!isForkBranch(worktree.branch)) throw new WorktreeError(`${worktree.branch} is not a fork branch.`, 'not-ours');
  const cwd = worktree.path;
  if (!existsSync(cwd)) throw new WorktreeError(`The fork's worktree ${cwd} no longer exists.`, 'failed');
  const ref = `refs/heads/${worktree.branch}`;
  const tip = (await gitOk(cwd, ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
  const state = await snapshotTree(cwd);
  let commit = tip;
  if (state !== (await treeOf(cwd, tip))) {
    commit = await commitTree(cwd, state, [tip], `fork-agents: ${name}`);
    await gitOk(cwd, ['update-ref', '-m', 'fork-agents: keep', ref, commit, tip]);
    // The worktree's index follows its branch so `git status` there is clean; files stay as they are.
    const symbolic = await git(cwd, ['symbolic-ref', '-q', 'HEAD']);
    if (symbolic.stdout.trim() === ref) await gitOk(cwd, ['reset', '-q']);
  }
  await updateWorktreeMeta(cwd, { keptAt: new Date().toISOString() });
  return commit;
}

/** Files the worktree changed since `base` and not applied since; 0 when the worktree is gone. */
export async function unappliedChanges(worktreePath: string, base: string): Promise<{ tree?: string; files: string[] }> {
  if (!existsSync(worktreePath)) return { files: [] };
  const tree = await snapshotTree(worktreePath);
  const meta = readWorktreeMeta(worktreePath);
  if (meta?.appliedTree === tree) return { tree, files: [] };
  return { tree, files: await changedPaths(worktreePath, base, tree) };
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}
