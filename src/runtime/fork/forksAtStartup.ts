// Forks read back when the runtime starts, and the interrupted ones made ready to run again once a
// client supplies model access (revive.ts closes the calls the crash cut off).
import type { CacheStep } from '../../common/cacheExplorer';
import { launchPolicy, revivalPolicy } from '../policy';
import type { Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import type { ForkSpending } from './forkBudget';
import type { ModelAccess } from './forkContracts';
import { closeInterruptedCalls } from './revive';
import { heldSession, runFromDisk } from './trackedFork';
import type { ForkRun } from './trackedFork';

export interface StartupLoad {
  store: SessionStore;
  /** The manager's forks: those read back are added; ones already there are left as they are. */
  forks: Map<string, ForkRun>;
  spending: ForkSpending;
  cacheStepsOf(session: Session): CacheStep[];
}

/**
 * Loads every fork on disk; unfinished ones wait for model access (the first configured key). A fork
 * whose inherited history cannot be read back is listed as failed, with the reason. Returns the problems.
 */
export async function loadForksFromDisk({ store, forks, spending, cacheStepsOf }: StartupLoad): Promise<string[]> {
  const problems: string[] = [];
  for (const id of store.ids().filter(id => id.startsWith('f-'))) {
    if (forks.has(id)) continue;
    let session: Session;
    try {
      session = await store.get(id);
    } catch (error) {
      // One unreadable fork file must not keep the others (or the runtime) from starting.
      problems.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!session.bootstrap) continue;
    const run = runFromDisk(store, session);
    forks.set(id, run);
    if (run.unavailable) {
      problems.push(`${id}: ${run.unavailable}`);
      continue;
    }
    spending.refreshCost(run, session.header.settings.model);
    if (session.requests().length > 0) run.summary.cacheSteps = cacheStepsOf(session);
    // It runs on revival: its chat's spending must be known for fork.budget.perChat.
    // Safe to drop: a parent that is gone or unreadable has no spending to count; the fork revives without it.
    if (run.summary.state === 'interrupted') await store.readSpent(run.summary.parentSessionId).catch(() => undefined);
  }
  return problems;
}

/**
 * Makes an interrupted fork ready to be queued under `access`, or says why it cannot run again (its
 * worktree is gone). A fork launched with `ask` still asks when a client configured with `auto` revives it.
 */
export function prepareRevival(run: ForkRun, access: ModelAccess): { refused: string } | undefined {
  if (run.summary.worktree?.discarded) return { refused: `Its worktree ${run.summary.worktree.path} no longer exists.` };
  const session = heldSession(run);
  const policy = revivalPolicy(session.bootstrap?.policy, launchPolicy(access));
  run.access = { ...access, approvalMode: policy.approvalMode, restricted: policy.restricted, sandbox: policy.sandbox };
  closeInterruptedCalls(session);
  return undefined;
}
