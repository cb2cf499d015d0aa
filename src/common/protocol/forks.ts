// Fork messages of the runtime protocol (docs/design.md §2, §4.6).
import type { AgentEvent } from '../agentEvents';
import type { ApprovalMode } from '../approval';
import type { ForkState, ForkSummary } from '../forks';
import type { CostFigures } from '../pricing';
import type { TournamentSummary, VerifyResult } from '../tournament';
import type { Usage } from '../transcript';
import { notification, request } from './descriptor';

export interface ForkStartParams {
  sessionId: string;
  directive: string;
  /** Validated by the one fork_turns parser; omitted means "all". */
  forkTurns?: unknown;
  /** Fork from this entry (Fork from here); absent: from everything committed so far. */
  atEntryId?: string;
  /** Absent: "worktree" when the session's root is inside a git repository, else "shared". */
  isolation?: 'shared' | 'worktree';
  origin?: 'user' | 'message';
  name?: string;
  /** Spending limit, dollars ("0.25") or tokens ("20000tokens"); absent: fork.budget.perFork. */
  budget?: string;
  /**
   * Another model than the parent's. Absent (the default): the parent's, so the fork's first request
   * reads the parent's prompt cache. Another model has a cache of its own: the fork starts cold.
   */
  model?: string;
}
/** `approvalMode`: the mode it was launched with (without a client mode: its chat's), its ceiling for fork/send. */
export type ForkStartResult = ForkSummary & { approvalMode?: ApprovalMode };
export const forkStart = request<ForkStartParams, ForkStartResult>('fork/start');

export interface ForkListParams { parentSessionId?: string }
export interface ForkListResult { forks: ForkSummary[] }
export const forkList = request<ForkListParams | undefined, ForkListResult>('fork/list');

/** The requests that name one fork and nothing else. */
export interface ForkIdParams { forkId: string }
export interface ForkCancelResult { cancelled: boolean }
export const forkCancel = request<ForkIdParams, ForkCancelResult>('fork/cancel');
/**
 * Continues a finished fork's own transcript with a new message (never re-reads the parent). A fork
 * paused at its budget continues with or without a message once `budget` (its new budget) allows.
 * The fork's launch approval mode is a ceiling: a looser client mode applies only with `loosenApproval`
 * (the user confirmed it). Restricted Mode is never lifted.
 */
export interface ForkSendParams { forkId: string; message?: string; budget?: string;
  /** Allow a looser approval mode than the fork was launched with (the user confirmed it). */
  loosenApproval?: boolean;
}
/** `approvalMode`: the mode the fork continues in (the sender's, capped by its launch mode unless loosened). */
export type ForkSendResult = ForkSummary & { approvalMode?: ApprovalMode };
export const forkSend = request<ForkSendParams, ForkSendResult>('fork/send');
/** Resolves once the fork is completed, failed or cancelled. */
export type ForkWaitResult = ForkSummary;
/**
 * `answerApprovals`: this client answers the fork's permission requests while it waits, before any editor
 * (`fork-agents fork --wait` on a terminal); without it they go to an editor as always.
 */
export interface ForkWaitParams extends ForkIdParams { answerApprovals?: boolean }
export const forkWait = request<ForkWaitParams, ForkWaitResult>('fork/wait');

/**
 * Claims the announcement of a finished run: `first` is true for exactly one caller per run, whichever
 * window (or reload of one) asks first; false while the fork still runs. Recorded on disk.
 */
export interface ForkAnnounceResult { first: boolean }
export const forkAnnounce = request<ForkIdParams, ForkAnnounceResult>('fork/announce');

/**
 * A fork's output so far, for a window that opens while forks run: its committed entries as the events
 * its run emitted (one text event per response), then what it emitted since its last commit. `seq` is
 * that of the latest `fork/event` included: later ones (seq > it) are not.
 */
export interface ForkHistoryResult { events: AgentEvent[]; seq: number }
export const forkHistory = request<ForkIdParams, ForkHistoryResult>('fork/history');

/** Streaming output of a fork, to every connected client; `seq` counts a fork's events in this runtime. */
export interface ForkEventParams { forkId: string; event: AgentEvent; seq: number }
export const forkEvent = notification<ForkEventParams>('fork/event');
/** A fork's summary whenever its state, turns or usage change. */
export interface ForkStateParams { fork: ForkSummary }
export const forkState = notification<ForkStateParams>('fork/state');

// Worktree forks (docs/design.md §4.8). Each answers InvalidParams for an unknown fork or a fork without a
// worktree, and InvalidRequest while the fork is still running (except review and discard).

export type ForkFileStatus = 'added' | 'modified' | 'deleted' | 'type-changed';

export interface ForkReviewResult {
  /** What the fork changed since its base: root-relative paths (of the repository), no renames. */
  files: { path: string; status: ForkFileStatus }[];
  /** The same as a unified patch (`a/` and `b/` prefixes, binary files as git binary patches). */
  patch: string;
  /** Commit the changes are measured from: the parent's HEAD plus its uncommitted and untracked files. */
  base: string;
  branch: string;
  /** The fork's worktree folder: the right side of each file's diff. */
  worktree: string;
  /** The main working tree the fork applies to. */
  repoRoot: string;
}
export const forkReview = request<ForkIdParams, ForkReviewResult>('fork/review');

/** A file's content at the fork's base (the left side of its diff); `exists: false` for files the fork added. */
export interface ForkBaseFileResult { exists: boolean; content?: string; binary?: boolean }
export interface ForkBaseFileParams { forkId: string; path: string }
export const forkBaseFile = request<ForkBaseFileParams, ForkBaseFileResult>('fork/baseFile');

/**
 * "refuse" (default): when any file conflicts, nothing is written. "markers": clean files are written,
 * text conflicts get conflict markers, other conflicts keep the main tree's file.
 */
export type ApplyConflictMode = 'refuse' | 'markers';
export interface ForkApplyResult {
  /** Files written to the main working tree (uncommitted; its index is not touched). */
  applied: string[];
  conflicts: string[];
  conflictDetails: { path: string; reason: string }[];
  /** Conflicting files that now hold conflict markers (mode "markers"). */
  withMarkers: string[];
  message: string;
}
export interface ForkApplyParams { forkId: string; onConflict?: ApplyConflictMode }
export const forkApply = request<ForkApplyParams, ForkApplyResult>('fork/apply');

/**
 * Cancels the fork if it runs, removes its worktree, branch and folder; the fork stays listed with
 * worktree.discarded. `endedProcesses`: what its commands had left running and the discard ended.
 */
export interface ForkDiscardResult { endedProcesses?: number }
export const forkDiscard = request<ForkIdParams, ForkDiscardResult>('fork/discard');

/** Commits the worktree's current state to the fork's branch (when it changed) and removes nothing. */
export interface ForkKeepResult { branch: string; commit: string }
export const forkKeep = request<ForkIdParams, ForkKeepResult>('fork/keep');

/** A fork worktree whose fork no longer exists. */
export interface WorktreeListing {
  path: string;
  branch: string;
  forkId: string;
  repoRoot: string;
  /** Files changed since the fork's base and never applied. */
  changedFiles: number;
}
/**
 * Worktrees pruned since the runtime started (fork gone, nothing unapplied) and those kept because they
 * hold unapplied changes. Waits for the start-up prune; with `root`, prunes that repository first.
 */
export interface WorktreeListParams { root?: string }
export interface WorktreeListResult { pruned: WorktreeListing[]; kept: WorktreeListing[] }
export const worktreeList = request<WorktreeListParams | undefined, WorktreeListResult>('worktree/list');

// Tournaments: N attempts of one directive, each a worktree fork of the same point, verified, judged,
// compared; the winner applied or chosen hunks merged.

export interface TournamentStartParams extends Omit<ForkStartParams, 'model' | 'isolation'> {
  /** 1–8; absent with `models`: one attempt per model. */
  attempts?: number;
  /** Attempt i runs models[(i-1) % models.length]; absent: every attempt runs the parent's model. */
  models?: string[];
  /** Run in each attempt's worktree when it ends; absent: fork.tournament.verify, else the detected test script; "" for none. */
  verify?: string;
  /** Ask attempts 2..N to take a different approach from the first (the hint follows the shared prefix). */
  differentApproaches?: boolean;
}
export interface TournamentStartResult { group: TournamentSummary; attempts: ForkSummary[] }
export const tournamentStart = request<TournamentStartParams, TournamentStartResult>('tournament/start');

export interface AttemptComparison {
  forkId: string;
  attempt: number;
  name: string;
  state: ForkState;
  model?: string;
  /** Set for an attempt on another model than the parent's: why its first request read no cache. */
  coldCache?: string;
  verify?: VerifyResult;
  files: { path: string; status: ForkFileStatus }[];
  added: number;
  removed: number;
  /** Hunks of its patch, numbered 1.. for tournament/apply's `hunks`. */
  hunks: AttemptHunk[];
  cost?: CostFigures;
  usage: Usage;
  /** Share of its first request's input read from the cache (0–1). */
  cacheShare?: number;
  report?: string;
  error?: string;
  pausedReason?: string;
}
export interface AttemptHunk {
  number: number;
  path: string;
  header: string;
  /** The hunk's lines (a whole-file change: the file's whole patch), at most HUNK_BODY_LINES of them. */
  body: string;
  /** Lines left out of `body`. */
  moreLines?: number;
}
/** A hunk's text is for reading and choosing; its whole is applied from the runtime's own patch. */
export const HUNK_BODY_LINES = 200;
export interface TournamentCompareParams { groupId: string }
export interface TournamentCompareResult { group: TournamentSummary; attempts: AttemptComparison[]; judgeUsage?: Usage }
export const tournamentCompare = request<TournamentCompareParams, TournamentCompareResult>('tournament/compare');

/**
 * Resolves once the group has a verdict, or every attempt ended or paused at the budget. `answerApprovals`:
 * this client answers its attempts' permission requests while it waits, as fork/wait's does.
 */
export interface TournamentWaitParams { groupId: string; answerApprovals?: boolean }
export const tournamentWait = request<TournamentWaitParams, TournamentCompareResult>('tournament/wait');

export interface TournamentListParams { parentSessionId?: string }
export interface TournamentListResult { groups: TournamentSummary[] }
export const tournamentList = request<TournamentListParams, TournamentListResult>('tournament/list');

/** The changes of attempt `b` relative to attempt `a` (their worktrees' states). */
export interface TournamentDiffParams { groupId: string; a: string; b: string }
export interface TournamentDiffResult { patch: string }
export const tournamentDiff = request<TournamentDiffParams, TournamentDiffResult>('tournament/diff');

/** Hunks of one attempt: by fork id or attempt number; `all` for every hunk. */
export interface HunkChoice { attempt: string | number; hunks: number[] | 'all' }
export interface TournamentApplyParams {
  groupId: string;
  /** Apply this attempt whole (fork/apply's three-way apply). */
  forkId?: string;
  /** Or merge these hunks into one result; chosen hunks that overlap are refused, never overwritten. */
  hunks?: HunkChoice[];
  onConflict?: ApplyConflictMode;
  /** Then discard every attempt's worktree in one action… */
  discardRest?: boolean;
  /** …committing each to its branch and keeping the branches. */
  keepBranches?: boolean;
}
export interface HunkConflictInfo { path: string; between: [string, string]; hunks: [number, number]; reason: string }
export interface TournamentApplyResult {
  applied: string[];
  /** Between chosen hunks of different attempts: nothing was written. */
  hunkConflicts: HunkConflictInfo[];
  /** With the main tree (fork/apply's conflicts, or git apply's reasons). */
  conflicts: string[];
  discarded: string[];
  keptBranches: string[];
  message: string;
}
export const tournamentApply = request<TournamentApplyParams, TournamentApplyResult>('tournament/apply');

/** Stops every attempt of the group (and the judge). */
export interface TournamentCancelParams { groupId: string }
export interface TournamentCancelResult { cancelled: string[] }
export const tournamentCancel = request<TournamentCancelParams, TournamentCancelResult>('tournament/cancel');
