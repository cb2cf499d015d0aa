// Code checkpoints: rewinding a chat's conversation and files to an earlier entry, and undoing that.
import type { ForkFileStatus } from './forks';
import { request } from './descriptor';

export interface RewindParams {
  sessionId: string;
  /** The entry that becomes the last one (its code comes back). Absent with `undo`. */
  atEntryId?: string;
  /** Takes back the session's latest rewind (possible while nothing was sent since). */
  undo?: boolean;
  /** What to rewind; both when neither is given. */
  code?: boolean;
  conversation?: boolean;
  /**
   * Files that also changed outside the agent are restored only with this set: without it the answer is
   * `needsConfirmation` with their list, and nothing changed.
   */
  confirm?: boolean;
}

/** `status`: what the rewind does to the file (deleted: removes it; added: brings back one that was gone). */
export interface RewoundFile { path: string; status: ForkFileStatus }

export interface RewindResult {
  /** false: nothing was changed; `outside` lists the files to confirm. */
  done: boolean;
  needsConfirmation?: boolean;
  /** Files put back (or, when not done, those that would be). */
  files: RewoundFile[];
  /** Of those, the files that also changed outside the agent since that point. */
  outside: string[];
  /** Files kept by reference (too large to record) that were left as they are. */
  leftAlone: string[];
  /** The session's last entry afterwards. */
  lastEntryId?: string;
}

export const sessionRewind = request<RewindParams, RewindResult>('session/rewind');

// ── What each turn changed, and "Diff since here" ─────────────────────────────────────────────────

export type TurnFileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed';

/** One file a turn changed: `oldPath` for renames; line counts absent for binary files. */
export interface TurnFile { path: string; status: TurnFileStatus; oldPath?: string; added?: number; removed?: number; binary?: boolean }

/**
 * A turn of the current history with both checkpoints: `startEntryId` is the entry it began after (a
 * chat's prompt), `endEntryId` its last entry when it ended; `files` what changed between the two.
 */
export interface TurnChanges { startEntryId: string | null; endEntryId: string | null; files: TurnFile[] }

export interface TurnFilesParams { sessionId: string }
export interface TurnFilesResult { turns: TurnChanges[] }
export const sessionTurnFiles = request<TurnFilesParams, TurnFilesResult>('session/turnFiles');

/** `startEntryId`: a turn's, from session/turnFiles (null: the session's first turn before any entry). */
export interface DiffSinceParams { sessionId: string; startEntryId: string | null }
export interface DiffSinceResult {
  /** The folder the paths are relative to: the right side of each diff is the file there now. */
  workTree: string;
  /** The turn's start checkpoint: the left side (session/checkpointFile). */
  tree: string;
  files: TurnFile[];
}
export const sessionDiffSince = request<DiffSinceParams, DiffSinceResult>('session/diffSince');

/** A file as one of the session's checkpoints recorded it; `exists: false` where it had none. */
export interface CheckpointFileParams { sessionId: string; tree: string; path: string }
export interface CheckpointFileResult { exists: boolean; content?: string; binary?: boolean }
export const sessionCheckpointFile = request<CheckpointFileParams, CheckpointFileResult>('session/checkpointFile');
