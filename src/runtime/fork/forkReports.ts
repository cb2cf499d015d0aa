// A fork's report on its way to the parent (delivered once into the parent's next request) and to the
// user (announced once across windows), recorded as flags on the fork's latest status record. A fork that
// ended may have left memory: its session is streamed in again for the write.
import { isTerminal } from '../../common/forks';
import { log } from '../log';
import type { ForkStatus } from '../session/records';
import type { Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import type { ForkRun } from './trackedFork';

/**
 * Agent-started forks of this parent that ended and whose report the parent has not had. Not one whose
 * start is not flushed (cancelled at once, say): a power loss could still erase it (startFlush.ts).
 */
export function undelivered(runs: Iterable<ForkRun>, parentSessionId: string): ForkRun[] {
  return [...runs].filter(run => run.summary.parentSessionId === parentSessionId && run.summary.origin === 'agent' &&
    isTerminal(run.summary.state) && !run.delivered && !run.unflushed);
}

/** Records that the run's report was delivered: at once when its session is in memory, else once it is read back. */
export function markDelivered(store: SessionStore, run: ForkRun): void {
  run.delivered = true;
  void updateStatus(store, run, status => ({ ...status, delivered: true }));
}

/** True for exactly one caller per finished run, decided in memory before any await. */
export async function claimAnnouncement(store: SessionStore, run: ForkRun): Promise<boolean> {
  if (!isTerminal(run.summary.state) || run.summary.announced) return false;
  run.summary.announced = true;
  await updateStatus(store, run, status => ({ ...status, announced: true }));
  return true;
}

/** Rewrites the latest status record (a flag on it); a failure is logged, the in-memory flag stands. */
async function updateStatus(store: SessionStore, run: ForkRun, patch: (status: ForkStatus) => ForkStatus): Promise<void> {
  const write = (session: Session) => {
    if (session.status) session.writeStatus(patch(session.status));
  };
  try {
    const loaded = inMemory(store, run);
    if (loaded) write(loaded);
    else await store.using(run.id, write);
  } catch (error) {
    log(`fork ${run.id}: could not record its status: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Writes how a run ended. In memory (the usual case: it just ran) the write is synchronous and a failure
 * throws; a fork stopped while paused and evicted is streamed in for the write, and a failure is logged.
 */
export function recordEnd(store: SessionStore, run: ForkRun, status: ForkStatus): void {
  const session = inMemory(store, run);
  if (session) return session.writeStatus(status);
  store.using(run.id, s => s.writeStatus(status)).catch(error => log(`fork ${run.id}: could not record its end: ${error instanceof Error ? error.message : String(error)}`));
}

function inMemory(store: SessionStore, run: ForkRun): Session | undefined {
  return run.lease?.session ?? store.loaded(run.id);
}
