// One session (parent chat or fork): fixed header plus the committed entries of its active history.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryKind, Message, SessionHeader, Usage } from '../../common/transcript';
import { deepFreeze } from '../../common/transcript';
import type { JsonlWriter } from './jsonl';
import type { SessionRecord } from './records';

export function newEntryId(): string {
  return 'e-' + randomUUID().slice(0, 13);
}

export class Session {
  private view: Entry[] = [];

  constructor(readonly header: SessionHeader, private readonly writer: JsonlWriter) {
    deepFreeze(header);
  }

  get id(): string {
    return this.header.id;
  }

  /** The active history, oldest first. Entries are deep-frozen and shared, never copied. */
  entries(): readonly Entry[] {
    return this.view;
  }

  lastEntry(): Entry | undefined {
    return this.view[this.view.length - 1];
  }

  /** Replays a record read from disk (no write). */
  replay(record: SessionRecord): void {
    if (record.type === 'entry') this.view.push(deepFreeze(record.entry));
    else if (record.type === 'rewind') this.applyRewind(record.toEntryId);
  }

  /** Commits a new entry: written and flushed, then visible. */
  commit(kind: EntryKind, message: Message, extra: { usage?: Usage; stopReason?: string } = {}): Entry {
    const entry: Entry = deepFreeze({ id: newEntryId(), kind, time: new Date().toISOString(), message, ...extra });
    this.writer.append({ type: 'entry', entry } satisfies SessionRecord);
    this.view.push(entry);
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

  private applyRewind(toEntryId: string | null): void {
    const index = toEntryId === null ? -1 : this.view.findIndex(e => e.id === toEntryId);
    if (toEntryId !== null && index < 0) return;
    this.view = this.view.slice(0, index + 1);
  }

  close(): void {
    this.writer.close();
  }
}
