// Deleting chats and forks, by hand (session/delete, `fork-agents delete`, Fork: Delete Session…) or by
// age (fork.retention.days). Sealed history goes only once nothing references it (session/retention.ts).
import { isTerminal } from '../common/forks';
import type { DeleteResult } from '../common/protocol/runtime';
import type { RuntimeContext } from './runtimeContext';
import { collectGarbage, expiredSessions, storeUsage } from './session/retention';
import { SessionNotFoundError } from './session/sessionStore';

export class DeleteRefusedError extends Error {}

/** Deletes a chat session or a fork, then its history nobody else references. */
export function deleteSession(ctx: RuntimeContext, id: string): DeleteResult {
  removeOne(ctx, id);
  const sweep = collectGarbage(ctx.store);
  return { deleted: id, segmentsRemoved: sweep.removed.length, freedBytes: sweep.freedBytes, store: storeUsage(ctx.store) };
}

function removeOne(ctx: RuntimeContext, id: string): void {
  if (!ctx.store.ids().includes(id)) throw new SessionNotFoundError(`No session or fork with id ${id}.`);
  if (id.startsWith('f-')) {
    const fork = ctx.forks.get(id);
    if (fork && !isTerminal(fork.state) && fork.state !== 'interrupted') {
      throw new DeleteRefusedError(`Fork ${id} is ${fork.state}; cancel it first.`);
    }
    ctx.forks.forget(id);
  } else if (ctx.turns.isRunning(id)) {
    throw new DeleteRefusedError(`A turn is running in session ${id}; cancel it first.`);
  }
  ctx.store.removeFile(id);
}

/** Deletes what was not written to for `days` days; anything running is spared. Returns the ids deleted. */
export function applyRetention(ctx: RuntimeContext, days: number): string[] {
  const deleted: string[] = [];
  for (const id of expiredSessions(ctx.store, days)) {
    try {
      removeOne(ctx, id);
      deleted.push(id);
    } catch (error) {
      if (!(error instanceof DeleteRefusedError)) throw error;
    }
  }
  if (deleted.length > 0) collectGarbage(ctx.store);
  return deleted;
}
