// The lines of a session file: a header, then (forks only) a bootstrap record, then entries, rewinds and
// fork status changes in commit order.
import type { ForkSummary } from '../../common/forks';
import type { LaunchPolicy } from '../policy';
import type { Entry, SessionHeader } from '../../common/transcript';

export type SessionRecord =
  | { type: 'header'; header: SessionHeader }
  | { type: 'bootstrap'; bootstrap: ForkBootstrap }
  | { type: 'entry'; entry: Entry }
  /** The conversation continues from `toEntryId` (null: from the start); later entries stay on disk. */
  | { type: 'rewind'; toEntryId: string | null; time: string }
  | { type: 'status'; status: ForkStatus };

/**
 * Everything a fork was launched with, written before its first request (DESIGN §4.7): revival resumes
 * from this and the fork's own entries, never from the parent.
 */
export interface ForkBootstrap {
  fork: ForkSummary;
  /** The selected parent entries, after boundary closing. */
  inherited: Entry[];
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
}
