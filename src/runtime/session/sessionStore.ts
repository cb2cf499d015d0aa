// Sessions on disk: <store>/sessions/<id>.jsonl, loaded lazily and kept open while in use.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Entry, SessionHeader } from '../../common/transcript';
import { deepFreeze } from '../../common/transcript';
import { JsonlWriter, dropTornTail, readJsonl } from './jsonl';
import type { SessionRecord, StoredBootstrap } from './records';
import { Session } from './session';

export class SessionNotFoundError extends Error {}
/** A fork whose inherited entries cannot be found (its parent's transcript was removed or damaged). */
export class ForkLoadError extends Error {}

export class SessionStore {
  private readonly open = new Map<string, Session>();
  /** Entries by id across loaded sessions: forks revived from disk share their inherited entries. */
  private readonly entriesById = new Map<string, Entry>();
  readonly sessionsDir: string;

  constructor(readonly storeDir: string) {
    this.sessionsDir = path.join(storeDir, 'sessions');
    fs.mkdirSync(this.sessionsDir, { recursive: true });
  }

  static newSessionId(): string {
    return 's-' + randomUUID();
  }

  create(header: SessionHeader): Session {
    const file = this.fileOf(header.id);
    if (fs.existsSync(file)) throw new Error(`session ${header.id} already exists`);
    const writer = new JsonlWriter(file);
    writer.append({ type: 'header', header } satisfies SessionRecord);
    const session = new Session(header, writer);
    this.open.set(header.id, session);
    return session;
  }

  /** Every session id on disk. */
  ids(): string[] {
    return fs.readdirSync(this.sessionsDir).filter(name => name.endsWith('.jsonl')).map(name => name.slice(0, -'.jsonl'.length));
  }

  get(id: string): Session {
    const cached = this.open.get(id);
    if (cached) return cached;
    if (!/^[a-z]-[0-9a-f-]{8,40}$/.test(id)) throw new SessionNotFoundError(`no session with id ${JSON.stringify(id)}`);
    const file = this.fileOf(id);
    if (!fs.existsSync(file)) throw new SessionNotFoundError(`no session with id ${id}`);
    const { records, tornBytes } = readJsonl<SessionRecord>(file);
    dropTornTail(file, tornBytes);
    const first = records[0];
    if (!first || first.type !== 'header') throw new Error(`session file ${file} has no header`);
    const session = new Session(first.header, new JsonlWriter(file));
    try {
      for (const record of records.slice(1)) session.replay(record, bootstrap => this.resolveInherited(bootstrap));
    } catch (error) {
      session.close();
      throw error;
    }
    session.internInherited(entry => this.intern(entry));
    this.open.set(id, session);
    return session;
  }

  /** Headers of every session on disk (first line only, so listing stays cheap). */
  listHeaders(): SessionHeader[] {
    const headers: SessionHeader[] = [];
    for (const name of fs.readdirSync(this.sessionsDir)) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      const open = this.open.get(id);
      if (open) {
        headers.push(open.header);
        continue;
      }
      const firstLine = readFirstLine(path.join(this.sessionsDir, name));
      try {
        const record = JSON.parse(firstLine) as SessionRecord;
        if (record.type === 'header') headers.push(record.header);
      } catch {
        // A file torn before its header was committed holds no session.
      }
    }
    return headers.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * A fork's inherited entries, written by id: shared with forks already loaded, else the parent's own
   * objects (the parent is opened), else read from the parent's transcript (where rewound entries remain).
   */
  private resolveInherited(bootstrap: StoredBootstrap): Entry[] {
    const ids = bootstrap.inheritedIds ?? [];
    const parentId = bootstrap.fork.parentSessionId;
    let parent: Map<string, Entry> | undefined;
    let onDisk: Map<string, Entry> | undefined;
    const find = (id: string): Entry | undefined => {
      const shared = this.entriesById.get(id);
      if (shared) return shared;
      // Opening the parent (as resuming its chat would) lets the forks share its objects: one copy in memory.
      parent ??= new Map((this.openQuietly(parentId)?.history() ?? []).map(entry => [entry.id, entry]));
      const inMemory = parent.get(id);
      if (inMemory) return inMemory;
      onDisk ??= this.committedEntriesOf(parentId);
      return onDisk.get(id);
    };
    const entries = ids.map(find);
    const missing = entries.filter(entry => entry === undefined).length;
    if (missing > 0) {
      throw new ForkLoadError(`Fork ${bootstrap.fork.id} cannot be loaded: ${missing} of the ${ids.length} entries it inherited are not in its parent's transcript (${this.fileOf(parentId)}).`);
    }
    return entries as Entry[];
  }

  private openQuietly(id: string): Session | undefined {
    try {
      return this.get(id);
    } catch {
      // Gone or unreadable: the caller says which entries are missing.
      return undefined;
    }
  }

  /** Every entry a session's file ever committed, rewound ones included; none when the file is gone. */
  private committedEntriesOf(sessionId: string): Map<string, Entry> {
    const entries = new Map<string, Entry>();
    const file = this.fileOf(sessionId);
    if (!/^[a-z]-[0-9a-f-]{8,40}$/.test(sessionId) || !fs.existsSync(file)) return entries;
    // A torn last line is left for the parent's own load to cut: it is never an entry a fork inherited.
    for (const record of readJsonl<SessionRecord>(file).records) {
      if (record.type === 'entry') entries.set(record.entry.id, deepFreeze(record.entry));
    }
    return entries;
  }

  private intern(entry: Entry): Entry {
    const known = this.entriesById.get(entry.id);
    if (known) return known;
    this.entriesById.set(entry.id, entry);
    return entry;
  }

  fileOf(id: string): string {
    return path.join(this.sessionsDir, `${id}.jsonl`);
  }

  closeAll(): void {
    for (const session of this.open.values()) session.close();
    this.open.clear();
  }
}

function readFirstLine(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const newline = buffer.subarray(0, read).indexOf(10);
      if (newline >= 0) {
        chunks.push(Buffer.from(buffer.subarray(0, newline)));
        break;
      }
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
