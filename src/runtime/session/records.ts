// The lines of a session file: a header, then entries and rewinds in commit order.
import type { Entry, SessionHeader } from '../../common/transcript';

export type SessionRecord =
  | { type: 'header'; header: SessionHeader }
  | { type: 'entry'; entry: Entry }
  /** The conversation continues from `toEntryId` (null: from the start); later entries stay on disk. */
  | { type: 'rewind'; toEntryId: string | null; time: string };
