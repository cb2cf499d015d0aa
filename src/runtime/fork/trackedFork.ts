// One fork as the fork manager keeps it: the summary clients see, the run's live state, and a lease on its
// session while it is queued, running or waiting to be revived (a fork that ended, or paused at
// its budget, holds none, so its session leaves memory when idle and is streamed in again on use);
// and the summary rebuilt from disk when the runtime starts.
import * as fs from 'node:fs';
import type { ForkSummary, ForkWorktree } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import { inputTokens } from '../../common/transcript';
import { describeDamage, unrepaired } from '../session/damage';
import type { Session } from '../session/session';
import type { SessionLease, SessionStore } from '../session/sessionStore';
import { findAdminDir, readWorktreeMeta } from '../git/worktreeMeta';
import { pinGitDir } from '../git/run';
import type { ModelAccess } from './forkContracts';
import { ForkBusyError } from './forkContracts';
import { UncommittedOutput } from './outputHistory';

export interface ForkRun {
  id: string;
  summary: ForkSummary;
  /** Held while the fork is queued, running or interrupted (waiting for model access). */
  lease?: SessionLease;
  /** Why its session cannot run (its inherited history is missing or damaged). */
  unavailable?: string;
  /** Its report went into the parent's request (or back as a foreground subagent's result). */
  delivered?: boolean;
  /** Just started: settles once its start is flushed (rejects if that failed, and the run with it; startFlush.ts). */
  startFlush?: Promise<void>;
  /** Its start is not flushed yet: nothing naming it may reach a parent's request. */
  unflushed?: boolean;
  /** Numbers the fork's `fork/event`s, so a history can say which it includes. */
  eventSeq: number;
  uncommitted: UncommittedOutput;
  access?: ModelAccess;
  controller?: AbortController;
  waiters: ((summary: ForkSummary) => void)[];
}

export function newRun(session: Session, summary: ForkSummary, access?: ModelAccess): ForkRun {
  return { id: session.id, summary, access, delivered: session.status?.delivered, waiters: [], eventSeq: 0, uncommitted: new UncommittedOutput() };
}

/** Refuses (ForkBusyError) to continue a fork that is not ended or paused, or cannot run at all. */
export function mayContinue(run: ForkRun, message: string | undefined): void {
  const forkId = run.id;
  const paused = run.summary.state === 'paused-budget';
  if (!isTerminal(run.summary.state) && !paused) throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}; wait for it to finish or stop it first.`);
  if (run.summary.worktree?.discarded) throw new ForkBusyError(`Fork ${forkId}'s worktree was discarded; it cannot continue.`);
  if (run.unavailable) throw new ForkBusyError(`Fork ${forkId} cannot continue: ${run.unavailable}.`);
  if (message === undefined && !paused) throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}: continue it with a message.`);
}

/** The session of a run that holds it (queued, running, interrupted). */
export function heldSession(run: ForkRun): Session {
  if (!run.lease) throw new Error(`fork ${run.id} is not held in memory`);
  return run.lease.session;
}

/**
 * A fork read back at start-up. One whose inherited history cannot be read is failed with the reason;
 * one paused at its budget stays paused (only the user continues it); any other unfinished one is
 * interrupted and stays in memory until revived. The rest may leave memory when idle.
 */
export function runFromDisk(store: SessionStore, session: Session): ForkRun {
  const run = newRun(session, summarize(session));
  const damage = unrepaired(session.damage).map(describeDamage);
  if (damage.length > 0) run.summary.damage = damage;
  if (session.unavailable) {
    Object.assign(run.summary, { state: 'failed', error: `Cannot revive: ${session.unavailable}.` });
    run.unavailable = session.unavailable;
  } else if (!isTerminal(run.summary.state) && run.summary.state !== 'paused-budget') {
    run.summary.state = 'interrupted';
    run.lease = store.holdLoaded(session.id);
  }
  return run;
}

/** A fork's summary rebuilt from disk: launch record, own responses' usage, latest status. */
export function summarize(session: Session): ForkSummary {
  // Billed usage counts every own request, rewound and failed ones included.
  const summary: ForkSummary = { ...session.bootstrap!.fork, usage: session.spent, modelTurns: 0 };
  for (const entry of session.ownEntries()) {
    if (entry.kind !== 'response' || !entry.usage) continue;
    summary.modelTurns++;
    summary.firstUsage ??= entry.usage;
    summary.context = { tokens: inputTokens(entry.usage) };
  }
  if (summary.worktree) summary.worktree = worktreeNow(summary.worktree);
  const status = session.status;
  if (status) {
    summary.state = status.state;
    summary.report = status.report;
    summary.error = status.error;
    summary.endedAt = isTerminal(status.state) ? status.time : undefined;
    summary.announced = status.announced;
    if (status.budget) summary.budget = status.budget;
    summary.pausedReason = status.pausedReason;
    if (status.sandbox) summary.sandbox = status.sandbox;
  }
  return summary;
}

/** A worktree's launch record brought up to date from disk: gone means discarded; apply and keep from its metadata. */
function worktreeNow(worktree: ForkWorktree): ForkWorktree {
  if (!fs.existsSync(worktree.path)) return { ...worktree, discarded: true };
  // Pinned before any git call in it: the recorded admin folder, or for older records the main repository's entry.
  const gitDir = worktree.gitDir ?? findAdminDir(worktree.repoRoot, worktree.path);
  if (gitDir) pinGitDir(worktree.path, gitDir);
  const meta = readWorktreeMeta(worktree.path);
  // The base moves once when preparation changed the worktree (setupBase.ts); the metadata has the latest.
  return { ...worktree, base: meta?.base || worktree.base, appliedAt: meta?.appliedAt, keptAt: meta?.keptAt };
}
