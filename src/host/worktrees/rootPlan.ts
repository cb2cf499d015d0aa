// Which workspace folders a window should gain or lose for worktree forks (docs/design.md §4.8), as pure functions
// of the window's folders and the runtime's fork list, so the rules are unit-tested without VS Code.
import * as path from 'node:path';
import type { ForkSummary, ForkWorktree } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import type { WorktreeListing } from '../../common/protocol/forks';

/** Command ids; the Forks panel and the fork-finished notification call them with `{ forkId }`. */
export const WORKTREE_COMMANDS = {
  review: 'forkAgents.reviewFork',
  apply: 'forkAgents.applyFork',
  keep: 'forkAgents.keepFork',
  discard: 'forkAgents.discardFork',
} as const;

export const FORK_FOLDER_PREFIX = 'Fork: ';

/** A workspace folder as the planner sees it: `path` is its real path when it exists. */
export interface FolderInfo { index: number; path: string; name: string }
export interface RootTarget { forkId: string; path: string; name: string; repoRoot: string }
/** Roots waiting for the window that "Save Workspace As…" opens (kept in global state across it). */
export interface PendingRoot extends RootTarget { at: number }
export type LiveWorktreeFork = ForkSummary & { worktree: ForkWorktree };

export function forkFolderName(fork: Pick<ForkSummary, 'name'>): string {
  return `${FORK_FOLDER_PREFIX}${fork.name}`;
}

/** The fork has a worktree that still exists (not discarded). */
export function hasLiveWorktree(fork: ForkSummary): fork is LiveWorktreeFork {
  return fork.worktree !== undefined && fork.worktree.discarded !== true;
}

export function isInsideOrSame(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Forks of another repository (a store shared with the CLI, say) get no root in this window. */
export function belongsToWindow(fork: LiveWorktreeFork, folders: readonly FolderInfo[]): boolean {
  const repo = fork.worktree.repoRoot;
  return folders.some(f => isInsideOrSame(f.path, repo) || isInsideOrSame(repo, f.path) || f.path === fork.worktree.path);
}

/**
 * Forks that should get a root now: a live worktree of this window's repository, not yet a folder, and
 * never added before (`attempted`): a root the user removed stays removed, and a window that lost the
 * root in a reload (code-server's single-folder windows) does not add it again in a loop.
 */
export function rootsToAdd(forks: readonly ForkSummary[], folders: readonly FolderInfo[], attempted: ReadonlySet<string>): RootTarget[] {
  const present = new Set(folders.map(f => f.path));
  const targets: RootTarget[] = [];
  for (const fork of forks) {
    if (!hasLiveWorktree(fork) || attempted.has(fork.id) || present.has(fork.worktree.path)) continue;
    if (!belongsToWindow(fork, folders)) continue;
    present.add(fork.worktree.path);
    targets.push({ forkId: fork.id, path: fork.worktree.path, name: forkFolderName(fork), repoRoot: fork.worktree.repoRoot });
  }
  return targets;
}

/** How long roots wait for the saved workspace to open: a later window is some other workspace. */
export const PENDING_TTL_MS = 10 * 60_000;

/** The pending roots the newly opened workspace takes: recent, still on disk, of its repository, not yet there. */
export function pendingToAdopt(pending: readonly PendingRoot[], folders: readonly FolderInfo[], now: number, exists: (p: string) => boolean): RootTarget[] {
  const present = new Set(folders.map(f => f.path));
  return pending
    .filter(p => now - p.at >= 0 && now - p.at < PENDING_TTL_MS && exists(p.path) && !present.has(p.path))
    .filter(p => folders.some(f => isInsideOrSame(f.path, p.repoRoot) || isInsideOrSame(p.repoRoot, f.path)))
    .map(({ forkId, path: at, name, repoRoot }) => ({ forkId, path: at, name, repoRoot }));
}

export interface DropContext {
  /** Worktrees the runtime pruned (their fork is gone and nothing was unapplied). */
  pruned: readonly WorktreeListing[];
  exists(folderPath: string): boolean;
}

/**
 * Folders that belonged to forks and now point at nothing: the fork's worktree was discarded, the
 * runtime pruned it, or a "Fork: …" folder whose path is gone; and "Fork: …" folders of forks applied or
 * kept while no window watched. Highest index first, so removing one does not shift the next.
 */
export function foldersToDrop(folders: readonly FolderInfo[], forks: readonly ForkSummary[], context: DropContext): FolderInfo[] {
  const discarded = new Set(forks.filter(f => f.worktree?.discarded).map(f => f.worktree!.path));
  const live = new Set(forks.filter(hasLiveWorktree).map(f => f.worktree.path));
  const settled = new Set(forks.filter(f => hasLiveWorktree(f) && (f.worktree.appliedAt || f.worktree.keptAt)).map(f => f.worktree!.path));
  const pruned = new Set(context.pruned.map(l => l.path));
  const forkFolder = (f: FolderInfo) => f.name.startsWith(FORK_FOLDER_PREFIX);
  return folders
    .filter(f => (forkFolder(f) && settled.has(f.path)) ||
      (!live.has(f.path) && (discarded.has(f.path) || pruned.has(f.path) || (forkFolder(f) && !context.exists(f.path)))))
    .sort((a, b) => b.index - a.index);
}

/** Folders worth asking the runtime to prune: not fork roots themselves (they share their repository). */
export function foldersToPrune(folders: readonly FolderInfo[], forks: readonly ForkSummary[]): string[] {
  const forkRoots = new Set(forks.flatMap(f => (f.worktree ? [f.worktree.path] : [])));
  return folders.filter(f => !forkRoots.has(f.path) && !f.name.startsWith(FORK_FOLDER_PREFIX)).map(f => f.path);
}

export type ForkNeed = 'any' | 'finished';

/** Forks a worktree command can act on: review and discard take any live worktree; apply and keep a finished fork. */
export function actionableForks(forks: readonly ForkSummary[], need: ForkNeed): LiveWorktreeFork[] {
  return forks
    .filter(hasLiveWorktree)
    .filter(f => need === 'any' || isTerminal(f.state))
    .sort((a, b) => (b.endedAt ?? b.createdAt).localeCompare(a.endedAt ?? a.createdAt));
}

/** The command argument: `{ forkId }` (panel, notification), a bare id, or nothing (ask). */
export function forkIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg !== '') return arg;
  if (arg && typeof arg === 'object') {
    const value = (arg as { forkId?: unknown }).forkId;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** One notification for orphaned worktrees kept for their unapplied changes, and a longer text behind it. */
export function keptOrphansText(kept: readonly WorktreeListing[]): { message: string; details: string } {
  const files = (n: number) => `${n} changed file${n === 1 ? '' : 's'}`;
  const shown = kept.slice(0, 3).map(l => `${l.branch} (${files(l.changedFiles)})`).join(', ');
  const more = kept.length > 3 ? ` and ${kept.length - 3} more` : '';
  const message = `${kept.length === 1 ? 'A fork worktree holds' : `${kept.length} fork worktrees hold`} changes that were never applied, ` +
    `but ${kept.length === 1 ? 'its fork no longer exists' : 'their forks no longer exist'}: ${shown}${more}.`;
  const details = [
    '# Fork worktrees with unapplied changes',
    '',
    'Their forks are gone, so Fork Agents keeps them rather than delete your changes. For each one you can',
    'look at the changes, copy what you need, and remove it with the commands shown.',
    '',
    ...kept.flatMap(l => [
      `## ${l.branch}`,
      '',
      `- Worktree: \`${l.path}\``,
      `- Repository: \`${l.repoRoot}\``,
      `- ${files(l.changedFiles)} since the fork started`,
      '',
      '```sh',
      `git -C ${shellQuote(l.path)} status --short`,
      `git -C ${shellQuote(l.repoRoot)} worktree remove --force ${shellQuote(l.path)} && git -C ${shellQuote(l.repoRoot)} branch -D ${shellQuote(l.branch)}`,
      '```',
      '',
    ]),
  ].join('\n');
  return { message, details };
}

function shellQuote(text: string): string {
  return /^[\w./@:+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
