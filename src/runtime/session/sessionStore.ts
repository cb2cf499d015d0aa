// Sessions on disk: <store>/sessions/<id>.jsonl, loaded lazily and kept open while in use.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Entry, SessionHeader } from '../../common/transcript';
import { ensurePrivateDir } from '../ipc/privateFs';
import { JsonlWriter, dropTornTail, readJsonl } from './jsonl';
import type { SessionRecord } from './records';
import { Session } from './session';

export class SessionNotFoundError extends Error {}

export class SessionStore {
  private readonly open = new Map<string, Session>();
  /** Entries by id across loaded sessions: forks revived from disk share their inherited entries. */
  private readonly entriesById = new Map<string, Entry>();
  readonly sessionsDir: string;

  constructor(readonly storeDir: string) {
    this.sessionsDir = path.join(storeDir, 'sessions');
    ensurePrivateDir(this.sessionsDir);
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
    for (const record of records.slice(1)) session.replay(record);
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
