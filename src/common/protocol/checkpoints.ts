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
