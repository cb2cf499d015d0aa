// A session's active history as one list, with the request view derived from it. A fork's list is built
// on first use from spans of its parent's history, so starting a fork copies nothing.
import type { Entry } from '../../common/transcript';
import { requestViewOf } from '../../common/requestView';
import type { Picked } from './picked';

export class ActiveHistory {
  /**
   * Everything in the active history, summaries and what they replaced included. Only ever appended to
   * in place; a rewind or bootstrap assigns a new array (a HistorySnapshot relies on it).
   */
  private list: Entry[] = [];
  /** A fork created here: its inherited entries as spans of the parent's history, built into `list` on first use. */
  private lazy?: { inherited: Picked; closing: Entry };
  /** The request view (docs/design.md §3), derived from the list and cached until it changes. */
  private requestView?: readonly Entry[];
  /** Known: the list holds no summary, so the request view is the list itself (no scan). */
  private noSummary = true;

  get entries(): Entry[] {
    if (this.lazy) {
      const { inherited, closing } = this.lazy;
      this.lazy = undefined;
      // One exactly sized array for the (possibly very long) list: what a fork's first request reads.
      this.list = inherited.toArray(closing);
    }
    return this.list;
  }

  /** Whether the list is still only a fork's inherited spans plus its closing entry. */
  get unbuilt(): boolean {
    return this.lazy !== undefined;
  }

  last(): Entry | undefined {
    if (this.lazy) return this.lazy.closing;
    return this.list[this.list.length - 1];
  }

  /** What requests carry (see Session.entries). */
  requestEntries(): readonly Entry[] {
    if (this.requestView) return this.requestView;
    this.requestView = this.noSummary ? this.entries : requestViewOf(this.entries);
    if (this.requestView === this.list) this.noSummary = true;
    return this.requestView;
  }

  /** A new list (rewind, undo, repair, bootstrap, a mended load); `maySummarize`: it may hold a summary. */
  replace(entries: Entry[], maySummarize = false): void {
    this.lazy = undefined;
    this.list = entries;
    this.changed(maySummarize);
  }

  /** A fork's history: `inherited` spans of its parent's, then `closing`; built on first read. */
  inherit(inherited: Picked, closing: Entry): void {
    this.list = [];
    this.lazy = { inherited, closing };
    this.changed(true);
  }

  push(entry: Entry): void {
    this.entries.push(entry);
    this.changed(entry.kind === 'summary');
  }

  /** The list was changed in place, or replaced: the request view is derived again. */
  changed(maySummarize = false): void {
    this.requestView = undefined;
    if (maySummarize) this.noSummary = false;
  }
}
