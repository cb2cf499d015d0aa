// One fork as the fork manager keeps it: its session, the summary clients see, the run's live state;
// and the summary rebuilt from disk when the runtime starts.
import * as fs from 'node:fs';
import type { ForkSummary, ForkWorktree } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import { inputTokens } from '../../common/transcript';
import type { Session } from '../session/session';
import { findAdminDir, readWorktreeMeta } from '../git/worktreeMeta';
import { pinGitDir } from '../git/run';
import type { ModelAccess } from './forkManager';
import { UncommittedOutput } from './outputHistory';

export interface ForkRun {
  session: Session;
  summary: ForkSummary;
  /** Numbers the fork's `fork/event`s, so a history can say which it includes. */
  eventSeq: number;
  uncommitted: UncommittedOutput;
  access?: ModelAccess;
  controller?: AbortController;
  waiters: ((summary: ForkSummary) => void)[];
}

export function newRun(session: Session, summary: ForkSummary, access?: ModelAccess): ForkRun {
  return { session, summary, access, waiters: [], eventSeq: 0, uncommitted: new UncommittedOutput() };
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
