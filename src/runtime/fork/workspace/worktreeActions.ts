// What the user does with a worktree fork when it ends (docs/design.md §4.8): review its changes, apply them to
// the main working tree, keep its branch, or discard it. The git work is in ../git; this checks the
// fork's state and records the outcome on its summary.
import type { ForkSummary, ForkWorktree } from '../../../common/forks';
import { isTerminal } from '../../../common/forks';
import type { ApplyConflictMode, ForkApplyResult, ForkBaseFileResult, ForkReviewResult } from '../../../common/protocol/forks';
import { applyForkToMain } from '../../git/applyFork';
import { fileAtBase, forkDiff } from '../../git/forkDiff';
import { discardForkWorktree, keepForkBranch } from '../../git/worktree';
import { updateWorktreeMeta } from '../../git/worktreeMeta';
import { ForkBusyError, ForkNotFoundError } from '../forkContracts';
import type { ForkManager } from '../forkManager';

/** The fork has no worktree (shared isolation) or it is gone. */
export class NoWorktreeError extends Error {}

/** One action at a time per fork: an apply racing a discard (or a delete) would read a worktree being deleted. */
const busy = new Set<string>();

export async function exclusive<T>(forkId: string, action: () => Promise<T>): Promise<T> {
  if (busy.has(forkId)) throw new ForkBusyError(`Another action on fork ${forkId}'s worktree is in progress.`);
  busy.add(forkId);
  try {
    return await action();
  } finally {
    busy.delete(forkId);
  }
}

function worktreeOf(manager: ForkManager, forkId: string): { fork: ForkSummary; worktree: ForkWorktree } {
  const fork = manager.get(forkId);
  if (!fork) throw new ForkNotFoundError(`No fork with id ${forkId}.`);
  if (!fork.worktree) throw new NoWorktreeError(`Fork ${forkId} works in the shared folder (isolation "shared"); it has no worktree.`);
  if (fork.worktree.discarded) throw new NoWorktreeError(`Fork ${forkId}'s worktree was discarded.`);
  return { fork, worktree: fork.worktree };
}

function requireFinished(fork: ForkSummary): void {
  if (!isTerminal(fork.state)) throw new ForkBusyError(`Fork ${fork.id} is ${fork.state}; wait for it to finish or stop it first.`);
}

export async function reviewFork(manager: ForkManager, forkId: string): Promise<ForkReviewResult> {
  const { worktree } = worktreeOf(manager, forkId);
  const diff = await forkDiff(worktree.path, worktree.base);
  return { files: diff.files, patch: diff.patch, base: worktree.base, branch: worktree.branch, worktree: worktree.path, repoRoot: worktree.repoRoot };
}

export async function baseFileOfFork(manager: ForkManager, forkId: string, path: string): Promise<ForkBaseFileResult> {
  const { worktree } = worktreeOf(manager, forkId);
  const content = await fileAtBase(worktree.path, worktree.base, path);
  if (!content) return { exists: false };
  if (content.includes(0)) return { exists: true, binary: true };
  return { exists: true, content: content.toString('utf8') };
}

export function applyFork(manager: ForkManager, forkId: string, onConflict: ApplyConflictMode = 'refuse'): Promise<ForkApplyResult> {
  return exclusive(forkId, async () => {
    const { fork, worktree } = worktreeOf(manager, forkId);
    requireFinished(fork);
    const outcome = await applyForkToMain({ repoRoot: worktree.repoRoot, worktree: worktree.path, base: worktree.base, onConflict });
    // Applied means: start-up pruning may remove this worktree once its fork is gone.
    if (outcome.conflicts.length === 0 || onConflict === 'markers') {
      const appliedAt = new Date().toISOString();
      await updateWorktreeMeta(worktree.path, { appliedTree: outcome.tree, appliedAt });
      manager.updateWorktree(forkId, { appliedAt });
    }
    const { applied, conflicts, conflictDetails, withMarkers, message } = outcome;
    return { applied, conflicts, conflictDetails, withMarkers, message };
  });
}

export function keepFork(manager: ForkManager, forkId: string): Promise<{ branch: string; commit: string }> {
  return exclusive(forkId, async () => {
    const { fork, worktree } = worktreeOf(manager, forkId);
    requireFinished(fork);
    const commit = await keepForkBranch(worktree, fork.name);
    manager.updateWorktree(forkId, { keptAt: new Date().toISOString() });
    return { branch: worktree.branch, commit };
  });
}

/** Stops the fork if it runs, then removes worktree, branch and folder. Discarding twice is fine. */
export function discardFork(manager: ForkManager, forkId: string): Promise<{ endedProcesses?: number }> {
  return exclusive(forkId, async () => {
    const fork = manager.get(forkId);
    if (fork?.worktree?.discarded) return {};
    const { worktree } = worktreeOf(manager, forkId);
    let endedProcesses: number | undefined;
    if (!isTerminal(fork!.state)) {
      manager.cancel(forkId);
      // The run ends what its commands left running before it counts as finished.
      endedProcesses = (await manager.wait(forkId)).endedProcesses;
    }
    await discardForkWorktree(worktree);
    manager.updateWorktree(forkId, { discarded: true });
    return endedProcesses ? { endedProcesses } : {};
  });
}
