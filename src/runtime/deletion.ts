// Deleting chats and forks, by hand (session/delete, `fork-agents delete`, Fork: Delete Session…) or by
// age (fork.retention.days). Sealed history goes only once nothing references it (session/retention.ts).
// A worktree fork's worktree goes with it, and a chat's forks' worktrees with the chat (fork/workspace/forkDeletion.ts);
// the forks of a deleted chat keep their transcripts.
import { isTerminal } from '../common/forks';
import type { ForkState } from '../common/forks';
import type { DeleteResult } from '../common/protocol/runtime';
import { WorktreeInUseError, planWorktreeRemovals, removeWorktree } from './fork/workspace/forkDeletion';
import type { WorktreeRemoval } from './fork/workspace/forkDeletion';
import { exclusive } from './fork/workspace/worktreeActions';
import type { RuntimeContext } from './runtimeContext';
import { collectGarbage, expiredSessions, storeUsage } from './session/retention';
import { SessionNotFoundError } from './session/sessionStore';

export class DeleteRefusedError extends Error {}

/**
 * Deletes a chat session or a fork, then its history nobody else references. `force` discards changes a
 * fork's worktree holds that were never applied or kept (without it they refuse the delete).
 */
export async function deleteSession(ctx: RuntimeContext, id: string, force = false): Promise<DeleteResult> {
  const worktrees = await removeOne(ctx, id, force);
  const sweep = collectGarbage(ctx.store);
  return {
    deleted: id, segmentsRemoved: sweep.removed.length, freedBytes: sweep.freedBytes, store: storeUsage(ctx.store),
    ...(worktrees.length > 0 ? { worktreesRemoved: worktrees.map(({ forkId, path, keptBranch, discardedFiles }) => ({ forkId, path, keptBranch, discardedFiles })) } : {}),
  };
}

async function removeOne(ctx: RuntimeContext, id: string, force: boolean): Promise<WorktreeRemoval[]> {
  if (!ctx.store.ids().includes(id)) throw new SessionNotFoundError(`No session or fork with id ${id}.`);
  const isFork = id.startsWith('f-');
  mayDelete(ctx, id);
  const forks = isFork ? [ctx.forks.get(id)].filter(f => f !== undefined) : ctx.forks.list(id);
  const removed: WorktreeRemoval[] = [];
  // Every worktree is checked before any is removed: a refusal leaves everything as it was.
  const plans = await refusing(() => planWorktreeRemovals(forks, force));
  // The checks took a while (git): a fork continued or a turn started meanwhile is not deleted.
  mayDelete(ctx, id);
  for (const plan of plans) {
    const state = ctx.forks.get(plan.forkId)?.state;
    if (state && !endedOrWaiting(state)) throw new DeleteRefusedError(`Fork ${plan.forkId} started again while deleting (it is ${state}); nothing was deleted.`);
  }
  for (const plan of plans) {
    await exclusive(plan.forkId, async () => {
      const worktree = ctx.forks.get(plan.forkId)?.worktree;
      if (!worktree || worktree.discarded) return;
      await removeWorktree(worktree, plan);
      // A chat's fork stays (its transcript); its worktree is gone.
      if (!isFork) ctx.forks.updateWorktree(plan.forkId, { discarded: true });
      removed.push(plan);
    });
  }
  if (isFork) ctx.forks.forget(id);
  ctx.store.removeFile(id);
  return removed;
}

function mayDelete(ctx: RuntimeContext, id: string): void {
  if (id.startsWith('f-')) {
    const fork = ctx.forks.get(id);
    if (fork && !endedOrWaiting(fork.state)) {
      throw new DeleteRefusedError(`Fork ${id} is ${fork.state}; cancel it first.`);
    }
  } else if (ctx.turns.isRunning(id)) {
    throw new DeleteRefusedError(`A turn is running in session ${id}; cancel it first.`);
  }
}

/** Not queued or running: ended, interrupted (not revived yet) or paused at its budget. */
function endedOrWaiting(state: ForkState): boolean {
  return isTerminal(state) || state === 'interrupted' || state === 'paused-budget';
}

async function refusing<T>(plan: () => Promise<T>): Promise<T> {
  try {
    return await plan();
  } catch (error) {
    if (error instanceof WorktreeInUseError) throw new DeleteRefusedError(error.message);
    throw error;
  }
}

/**
 * Deletes what was not written to for `days` days; anything running, and any worktree holding work
 * not applied, is spared. Returns the ids deleted.
 */
export async function applyRetention(ctx: RuntimeContext, days: number): Promise<string[]> {
  const deleted: string[] = [];
  for (const id of expiredSessions(ctx.store, days)) {
    try {
      await removeOne(ctx, id, false);
      deleted.push(id);
    } catch (error) {
      if (!(error instanceof DeleteRefusedError)) throw error;
    }
  }
  if (deleted.length > 0) collectGarbage(ctx.store);
  return deleted;
}
