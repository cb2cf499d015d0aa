// What deleting a worktree fork (or the chat it came from) does to its worktree: a user deleting
// a fork wants it gone, so its worktree and branch go with it — unless they hold work the user would lose.
// Changes never applied (nor kept on the branch) refuse the delete with the files named; `force` discards
// them. A branch the user kept (`keep`) is the user's: the worktree goes, the branch stays.
import { existsSync } from 'node:fs';
import type { ForkSummary, ForkWorktree } from '../../../common/forks';
import { isTerminal } from '../../../common/forks';
import { treeOf } from '../../git/repo';
import { gitOk } from '../../git/run';
import { changedPaths, snapshotTree } from '../../git/snapshot';
import { discardForkWorktree, unappliedChanges } from '../../git/worktree';

/** The delete would lose work, or the worktree is in use. */
export class WorktreeInUseError extends Error {}

export interface WorktreeRemoval {
  forkId: string;
  path: string;
  /** Set when the branch stays (the user kept it). */
  keptBranch?: string;
  /** Changed files discarded because of `force`. */
  discardedFiles: number;
}

const SHOWN_FILES = 5;

/** What deleting these forks' worktrees would do; throws WorktreeInUseError (naming every fork) when it may not. */
export async function planWorktreeRemovals(forks: readonly ForkSummary[], force: boolean): Promise<WorktreeRemoval[]> {
  const plans: WorktreeRemoval[] = [];
  const refusals: string[] = [];
  for (const fork of forks) {
    const worktree = fork.worktree;
    if (!worktree || worktree.discarded || !existsSync(worktree.path)) continue;
    if (!isTerminal(fork.state) && fork.state !== 'interrupted' && fork.state !== 'paused-budget') {
      refusals.push(`fork ${fork.id} ("${fork.name}") is ${fork.state} in its worktree ${worktree.path}; cancel it first`);
      continue;
    }
    const files = await filesAtRisk(worktree);
    if (files.length > 0 && !force) {
      const shown = files.slice(0, SHOWN_FILES).join(', ') + (files.length > SHOWN_FILES ? `, … (${files.length} files)` : '');
      const what = worktree.keptAt ? 'changed since its branch was kept' : 'not applied';
      refusals.push(`fork ${fork.id} ("${fork.name}") has changes ${what} in ${worktree.path}: ${shown}. ` +
        `Apply them (fork-agents apply --fork ${fork.id}), keep its branch (fork-agents keep --fork ${fork.id}), or delete with --force to discard them`);
      continue;
    }
    plans.push({ forkId: fork.id, path: worktree.path, discardedFiles: files.length, ...(worktree.keptAt ? { keptBranch: worktree.branch } : {}) });
  }
  if (refusals.length > 0) throw new WorktreeInUseError(`Not deleted: ${refusals.join('; ')}.`);
  return plans;
}

/** Removes one planned worktree: with its branch, or, for a kept branch, the worktree alone. */
export function removeWorktree(worktree: ForkWorktree, plan: WorktreeRemoval): Promise<void> {
  return discardForkWorktree(worktree, { keepBranch: plan.keptBranch !== undefined });
}

/** Files the user would lose: not applied; for a kept fork, changed since the branch's tip. */
async function filesAtRisk(worktree: ForkWorktree): Promise<string[]> {
  if (!worktree.keptAt) return (await unappliedChanges(worktree.path, worktree.base)).files;
  const tip = (await gitOk(worktree.path, ['rev-parse', '--verify', `refs/heads/${worktree.branch}^{commit}`])).trim();
  const state = await snapshotTree(worktree.path);
  if (state === (await treeOf(worktree.path, tip))) return [];
  return changedPaths(worktree.path, tip, state);
}
