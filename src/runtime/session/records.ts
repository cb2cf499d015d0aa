// The lines of a session file: a header, then (forks only) a bootstrap record, then entries, rewinds and
// fork status changes in commit order.
import type { ApprovalMode } from '../../common/approval';
import type { Budget } from '../../common/budget';
import type { CacheStep } from '../../common/cacheExplorer';
import type { ForkSummary } from '../../common/forks';
import type { SandboxState } from '../../common/sandbox';
import type { LaunchPolicy } from '../policy';
import type { Entry, InputTransformation, SessionHeader, Usage } from '../../common/transcript';
import type { ChainRange, RangeSegmentHeader } from './segments';

/** What the cache explorer keeps of each request sent (cache/fingerprint.ts computes it from the body that went out). */
export interface RequestRecord {
  /** When the provider answered (its clock when it said, else ours), ISO. */
  time: string;
  model: string;
  /** JSON of the thinking setting, or "off". */
  thinking: string;
  ttl: '5m' | '1h';
  /** How many of `blocks` are tool definitions, then system blocks; message blocks follow. */
  toolBlocks: number;
  systemBlocks: number;
  /** One hash per block, cache_control left out (it does not change what is cached). */
  blocks: string[];
  /** Indexes into `blocks` of the blocks that carried a cache_control breakpoint. */
  breakpoints: number[];
  /** The last entry the request carried, so a fork finds the parent request it should extend. */
  lastEntryId?: string;
  usage: Usage;
  /** The API's `input_transformations` for this request (thinking it dropped before the model read it), when any. */
  inputTransformations?: InputTransformation[];
  /**
   * A fork's first request only: why it did or did not extend the parent's request, decided when it was
   * recorded (the parent is in memory then; later it may not be, and every surface must say the same).
   */
  explained?: RequestExplanation;
}

/** The base a stored request extends: request `index` of `sessionId` (absent: the same session). */
export interface RequestBase { sessionId?: string; index: number }

/**
 * A request record on disk (cache/storedRequest.ts): in full (`blocks`; every record older files hold), or
 * the first `keep` blocks of the request `extends` names followed by `tail`.
 */
export type StoredRequest = RequestRecord | (Omit<RequestRecord, 'blocks'> & { extends: RequestBase & { keep: number }; tail: string[] });

/** The cache explorer's verdict on one request (cache/explorer.ts `explain`). */
export type RequestExplanation = Pick<CacheStep, 'cause' | 'detail' | 'matchedBlocks' | 'totalBlocks' | 'baseline'>;

export type SessionRecord =
  | { type: 'header'; header: SessionHeader }
  | { type: 'bootstrap'; bootstrap: ForkBootstrap }
  | { type: 'entry'; entry: Entry }
  /** The conversation continues from `toEntryId` (null: from the start); later entries stay on disk. */
  | { type: 'rewind'; toEntryId: string | null; time: string; code?: RewoundCode }
  /** The latest rewind is taken back: the history is again what it was before it. */
  | { type: 'rewind-undo'; time: string; code?: RewoundCode }
  /** The work tree's state as a tree in the store's shadow repository (checkpoint/), after `lastEntryId`. */
  | { type: 'checkpoint'; checkpoint: CheckpointRecord }
  | { type: 'status'; status: ForkStatus }
  /**
   * The entries from the last seal up to `count` more were sealed as segment `hash` (segments.ts): a byte
   * range of this file when `segment` is given (its header, whose sha256 is `hash`), else a copied v1 file.
   * `prefix`: the chat's history up to this segment's end is its chain's first positions, with no summary
   * (a fork of the chat while it is not loaded names that from the file's tail: fork/history/tailParent.ts).
   */
  | { type: 'seal'; hash: string; count: number; segment?: RangeSegmentHeader; prefix?: SealPrefix }
  /** Usage the provider billed for attempts that left no entry: cut, failed or cancelled after they started. */
  | { type: 'spend'; usage: Usage; time: string; why: string }
  /** What a request that got a response looked like to the prompt cache (the cache explorer). */
  | { type: 'request'; request: StoredRequest }
  /** The approval mode a chat's turns run with, written when it changes: a fork started without a mode of its own takes it. */
  | { type: 'approval'; approvalMode: ApprovalMode; time: string }
  /**
   * Damaged `lines` mended for good (fork-agents doctor --repair): like a rewind, the history continues from
   * its first `keep` entries (the last of them `keepLastId`), followed by `entries` (recovered from a segment
   * or closed) — written after the damage, so the file stays append-only. Older runtimes skip the record and
   * mend in memory as before.
   */
  | { type: 'repair'; lines: number[]; keep: number; keepLastId: string | null; entries: Entry[]; time: string };

/**
 * What a seal record says of the chat when the history up to its segment's end is exactly chain positions
 * [0, base + count) (no rewind into sealed history, no damage mended, no compaction summary): the approval
 * mode its turns ran with then, which a fork started without one takes (absent: none recorded).
 */
export interface SealPrefix { approvalMode?: ApprovalMode }

/** A bootstrap's inherited entries, in order: ranges of the parent's sealed chain, or entries written here. */
export type HistoryPart = ChainRange | { entries: Entry[] };

/** Inherited history by reference (docs/design.md §3): the chain's head segment and the parts taken. */
export interface HistoryRefs { head: string | null; parts: HistoryPart[] }

/**
 * The fork as it starts. Its spend and model turns are left out: a fresh fork has none, and a revived one
 * counts its own entries (bootstraps written before 2026-12-03 carry zeros, which readers ignore). Without
 * them a small fork's file stays under a copy of its window.
 */
export type ForkStartSummary = Omit<ForkSummary, 'usage' | 'modelTurns'> & Partial<Pick<ForkSummary, 'usage' | 'modelTurns'>>;

/**
 * Everything a fork was launched with, written before its first request (docs/design.md §4.7): revival resumes
 * from this and the fork's own entries, never from the parent.
 */
export interface ForkBootstrap {
  /** The selected parent entries by reference (written first, so start-up reference counting reads little). */
  history?: HistoryRefs;
  fork: ForkStartSummary;
  /** The selected parent entries, after boundary closing, in full (bootstraps of release 0.1.0). */
  inherited?: Entry[];
  /** The user entry the fork adds: placeholder results and the directive. */
  closing: Entry;
  /** Index (into inherited) of the last entry of the parent's latest request, for its cache breakpoints. */
  parentRequestEnd: number;
  /** Tool call id of the Agent call that started it, when the agent did. */
  callId?: string;
  /** Approval mode and Restricted Mode at launch: revival never runs looser (absent in older files: ask). */
  policy?: LaunchPolicy;
}

export interface ForkStatus {
  state: ForkSummary['state'];
  time: string;
  report?: string;
  error?: string;
  /** The report was delivered into the parent's next request. */
  delivered?: boolean;
  /** A window showed the user that this run ended (fork/announce), so no window shows it again. */
  announced?: boolean;
  /** The fork's budget as of this status (raised by a continue). */
  budget?: Budget;
  pausedReason?: string;
  /** What its commands ran in on the run that ended here. */
  sandbox?: SandboxState;
}

/** A file kept by reference in a checkpoint (too large to copy): what it looked like then. */
export interface LargeFileRef { path: string; size: number; mtimeMs: number }

export interface CheckpointRecord {
  /** Tree id in the shadow repository of `workTree` (checkpoint/shadowRepo.ts). */
  tree: string;
  workTree: string;
  /** The last entry of the history when it was taken (null: none yet). */
  lastEntryId: string | null;
  /** turn-start: after the prompt, before the agent changed anything; turn-end: when the turn ended. */
  kind: 'turn-start' | 'turn-end';
  time: string;
  large?: LargeFileRef[];
}

/** What a rewind (or its undo) did to the files: the tree before it and the tree it left. */
export interface RewoundCode { workTree: string; before: string; after: string; paths: string[] }
