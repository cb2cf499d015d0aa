// One session (parent chat or fork): fixed header plus the committed entries of its active history.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryKind, Message, SessionHeader, Usage } from '../../common/transcript';
import { deepFreeze } from '../../common/transcript';
import { requestViewOf } from '../../common/requestView';
import type { ForkFirstRequest } from '../agent/request';
import type { JsonlWriter } from './jsonl';
import type { ForkBootstrap, ForkStatus, SessionRecord } from './records';

export type LoadedBootstrap = Omit<ForkBootstrap, 'inherited'> & { inheritedCount: number };

export function newEntryId(): string {
  return 'e-' + randomUUID().slice(0, 13);
}

export class Session {
  /** Everything in the active history, summaries and what they replaced included. */
  private view: Entry[] = [];
  /** The request view (DESIGN §4.1, issue 6), derived from `view` and cached until it changes. */
  private requestView?: readonly Entry[];
  /** Forks only: the launch record without its inherited entries (those live in the view, shared). */
  bootstrap?: LoadedBootstrap;
  status?: ForkStatus;
  private ownResponses = 0;

  constructor(readonly header: SessionHeader, private readonly writer: JsonlWriter) {
    deepFreeze(header);
  }

  get id(): string {
    return this.header.id;
  }

  /**
   * What requests carry, oldest first: after a compaction, the startup entry, the latest summary and
   * the entries after it. Entries are deep-frozen and shared, never copied.
   */
  entries(): readonly Entry[] {
    this.requestView ??= requestViewOf(this.view);
    return this.requestView;
  }

  /** The whole active history, including what summaries replaced (for transcripts shown to people). */
  history(): readonly Entry[] {
    return this.view;
  }

  lastEntry(): Entry | undefined {
    return this.view[this.view.length - 1];
  }

  /** Replays a record read from disk (no write). */
  replay(record: SessionRecord): void {
    if (record.type === 'entry') this.push(deepFreeze(record.entry));
    else if (record.type === 'rewind') this.applyRewind(record.toEntryId);
    else if (record.type === 'bootstrap') this.applyBootstrap(record.bootstrap);
    else if (record.type === 'status') this.status = record.status;
  }

  /** Forks: written once, before the first request. Inherited entries stay shared with the parent. */
  writeBootstrap(bootstrap: ForkBootstrap): void {
    this.writer.append({ type: 'bootstrap', bootstrap } satisfies SessionRecord);
    this.applyBootstrap(bootstrap);
  }

  writeStatus(status: ForkStatus): void {
    this.writer.append({ type: 'status', status } satisfies SessionRecord);
    this.status = status;
  }

  /**
   * A fork's requests keep the parent's latest request's cache breakpoints until the fork has answered
   * once, so its first request repeats the parent's bytes exactly (DESIGN §4.6). Not after the fork
   * compacted itself: its request view no longer starts with the inherited entries.
   */
  inheritedBreakpointsEnd(): ForkFirstRequest | undefined {
    if (!this.bootstrap || this.ownResponses > 0 || this.bootstrap.parentRequestEnd < 0) return undefined;
    if (this.ownEntries().some(entry => entry.kind === 'summary')) return undefined;
    return { parentRequestEnd: this.bootstrap.parentRequestEnd, closingAt: this.bootstrap.inheritedCount };
  }

  /** Entries this session committed itself (for forks: after the bootstrap). */
  ownEntries(): readonly Entry[] {
    return this.bootstrap ? this.view.slice(this.bootstrap.inheritedCount + 1) : this.view;
  }

  /** Commits a new entry: written and flushed, then visible. */
  commit(kind: EntryKind, message: Message, extra: { usage?: Usage; stopReason?: string; replacesUpTo?: string } = {}): Entry {
    const entry: Entry = deepFreeze({ id: newEntryId(), kind, time: new Date().toISOString(), message, ...extra });
    this.writer.append({ type: 'entry', entry } satisfies SessionRecord);
    this.push(entry);
    return entry;
  }

  /** Makes `toEntryId` the last entry of the active history (null: empty). Returns false if unknown. */
  rewindTo(toEntryId: string | null): boolean {
    if (toEntryId === (this.lastEntry()?.id ?? null)) return true;
    if (toEntryId !== null && !this.view.some(e => e.id === toEntryId)) return false;
    this.writer.append({ type: 'rewind', toEntryId, time: new Date().toISOString() } satisfies SessionRecord);
    this.applyRewind(toEntryId);
    return true;
  }

  private push(entry: Entry): void {
    this.view.push(entry);
    this.requestView = undefined;
    if (entry.kind === 'response') this.ownResponses++;
  }

  private applyBootstrap(bootstrap: ForkBootstrap): void {
    const { inherited, ...rest } = bootstrap;
    this.bootstrap = deepFreeze({ ...rest, inheritedCount: inherited.length });
    this.view = [...inherited.map(entry => deepFreeze(entry)), deepFreeze(bootstrap.closing)];
    this.requestView = undefined;
  }

  private applyRewind(toEntryId: string | null): void {
    const index = toEntryId === null ? -1 : this.view.findIndex(e => e.id === toEntryId);
    if (toEntryId !== null && index < 0) return;
    this.view = this.view.slice(0, index + 1);
    this.requestView = undefined;
  }

  close(): void {
    this.writer.close();
  }

  /** Replaces inherited entries with equal ones already in memory, so revived forks share them. */
  internInherited(intern: (entry: Entry) => Entry): void {
    if (!this.bootstrap) return;
    for (let i = 0; i < this.bootstrap.inheritedCount; i++) this.view[i] = intern(this.view[i]);
    this.requestView = undefined;
  }
}
