// What a running fork's events change in the summary clients see: its usage and model turns, its context,
// the cache explorer's steps and its cost so far.
import type { AgentEvent } from '../../common/agentEvents';
import { addUsage } from '../../common/transcript';
import { cacheSteps } from '../cache/sessionCache';
import type { Session } from '../session/session';
import type { ForkSpending } from './forkBudget';
import { heldSession } from './trackedFork';
import type { ForkRun } from './trackedFork';

/**
 * Folds one event into the run's summary; true when the summary changed. `loaded` gives the sessions in
 * memory (the explorer compares a fork's first request with its parent's, when loaded).
 */
export function recordProgress(run: ForkRun, event: AgentEvent, spending: ForkSpending, loaded: (id: string) => Session | undefined): boolean {
  if (event.type === 'usage') {
    run.summary.usage = addUsage(run.summary.usage, event.usage);
    const session = heldSession(run);
    if (!event.billedOnly) {
      run.summary.modelTurns++;
      run.summary.firstUsage ??= event.usage;
      run.summary.context = { tokens: event.contextTokens, window: event.contextWindow };
      // Only the new request is explained: the steps before it stay as they were.
      run.summary.cacheSteps = cacheSteps(session, loaded, run.summary.cacheSteps);
    }
    spending.refreshCost(run, session.header.settings.model);
    return true;
  }
  if (event.type === 'entry' && event.entry.usage) {
    // The usage event comes before its response is committed: the cost counts the request from here.
    spending.refreshCost(run, heldSession(run).header.settings.model);
    return true;
  }
  return false;
}
