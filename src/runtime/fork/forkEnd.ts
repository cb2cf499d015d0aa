// How a fork's run ends (docs/design.md §4.6): what the loop's outcome means for the fork's state, the
// end written to its transcript, its session let go, and everyone told who waits on it (callers of
// fork/wait, the clients, a tournament).
import type { ForkState } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import type { LoopOutcome } from '../agent/loop';
import { log } from '../log';
import type { SessionStore } from '../session/sessionStore';
import type { GroupHooks } from './forkContracts';
import { forkRequestCap } from './forkContracts';
import { recordEnd } from './forkReports';
import { heldSession } from './trackedFork';
import type { ForkRun } from './trackedFork';

/** What ending a run needs from the fork manager. */
export interface RunEndContext {
  store: SessionStore;
  /** Sets the state clients see, and tells them. */
  setState(run: ForkRun, state: ForkState): void;
  /** A tournament's hooks, when its manager is attached. */
  groups?: GroupHooks;
}

/** Maps one loop's outcome (or its failed worktree preparation) to the fork's end, or to a pause at its budget. */
export function endWithOutcome(ctx: RunEndContext, run: ForkRun, outcome: LoopOutcome, setupFailure?: string): void {
  if (setupFailure) return finishRun(ctx, run, 'failed', undefined, setupFailure);
  if (outcome.stopReason === 'cancelled') return finishRun(ctx, run, 'cancelled');
  if (outcome.stopReason === 'budget') return pauseRun(ctx, run, outcome.budgetReason ?? 'Its budget is reached.');
  if (outcome.stopReason === 'error') return finishRun(ctx, run, 'failed', undefined, outcome.error?.message);
  if (outcome.stopReason === 'max_turns') {
    return finishRun(ctx, run, 'failed', outcome.text || undefined, `Stopped at the cap of ${forkRequestCap()} model turns.`);
  }
  finishRun(ctx, run, 'completed', outcome.text);
}

/** A failure in the bookkeeping around the loop (the loop's own failures arrive as its outcome). */
export function failRun(ctx: RunEndContext, run: ForkRun, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  log(`fork ${run.id} failed: ${message}`);
  run.controller = undefined;
  if (!isTerminal(run.summary.state)) finishRun(ctx, run, 'failed', undefined, message);
}

export function finishRun(ctx: RunEndContext, run: ForkRun, state: ForkState, report?: string, error?: string): void {
  run.summary.report = report;
  run.summary.error = error;
  run.summary.endedAt = new Date().toISOString();
  run.summary.announced = undefined;
  run.summary.pausedReason = undefined;
  try {
    recordEnd(ctx.store, run, { state, time: run.summary.endedAt, report, error, budget: run.summary.budget, sandbox: run.summary.sandbox });
  } catch (writeError) {
    // A full disk: the clients still learn how the run ended; on disk it stays unfinished and is revived.
    const message = writeError instanceof Error ? writeError.message : String(writeError);
    log(`fork ${run.id}: ${message}`);
    run.summary.error = error ? `${error} ${message}` : message;
  }
  run.delivered = undefined;
  releaseSession(run);
  ctx.setState(run, state);
  tellWaiters(ctx, run);
}

/** Stopped before a request at a budget: not finished, transcript intact; the user continues or stops it. */
export function pauseRun(ctx: RunEndContext, run: ForkRun, reason: string): void {
  run.summary.pausedReason = reason;
  heldSession(run).writeStatus({ state: 'paused-budget', time: new Date().toISOString(), budget: run.summary.budget, pausedReason: reason });
  releaseSession(run);
  ctx.setState(run, 'paused-budget');
  tellWaiters(ctx, run);
}

/** Lets an ended or paused fork's session leave memory when idle. */
export function releaseSession(run: ForkRun): void {
  run.lease?.release();
  run.lease = undefined;
}

function tellWaiters(ctx: RunEndContext, run: ForkRun): void {
  for (const resolve of run.waiters.splice(0)) resolve({ ...run.summary });
  ctx.groups?.attemptEnded({ ...run.summary });
}
