// Sessions on disk: <store>/sessions/<id>.jsonl, streamed in on first use, kept open while in use and
// evicted when idle; sealed history in <store>/segments (segments.ts), shared by parents and their forks.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Entry, SessionHeader, Usage } from '../../common/transcript';
import type { BilledRequest } from '../../common/pricing';
import { deepFreeze } from '../../common/transcript';
import { ensurePrivateDir } from '../../ipc/privateFs';
import { JsonlWriter, TranscriptWriteError, dropTornTail } from './jsonl';
import type { ForkBootstrap, HistoryRefs, SessionRecord } from './records';
import { SegmentError, SegmentStore, writeWhole } from './segments';
import { FolderSync, createThenFlushOffThread } from './offThreadFlush';
import { StartJournal, recoverStarts } from './startJournal';
import { headerParts } from './headerBytes';
import { recordParts } from './recordBytes';
import type { ChainRange } from './segments';
import { Session } from './session';
import { streamJsonl } from './streamJsonl';
import { describeDamage, launchRecordProblem, standInBootstrap, unrepaired } from './damage';
import { log } from '../log';
import { lazyWriter, writerAfter } from './deferredWriters';

export class SessionNotFoundError extends Error {}

/** A fork start's three moments: in the journal (a crash keeps it), flushed (a power loss keeps it), its own file written. */
interface StartWrites { started: Promise<void>; flushed: Promise<void>; fileWritten: Promise<void> }

/**
 * A session held in memory by someone who uses it across awaits (a turn, a running fork, a request
 * handler): while any lease is held the session is not evicted, so every get() returns this instance
 * and no second copy can append to its file.
 */
export interface SessionLease {
  readonly session: Session;
  /** Ends this lease (again is a no-op); the idle time counts from here. */
  release(): void;
}

export interface SessionStoreOptions {
  /** The clock idle times are measured on (tests drive their own). */
  now?: () => number;
  /**
   * Loading writes nothing (fork-agents doctor without --repair, beside a runtime that may own the store):
   * folder modes are not tightened and a torn last line is reported on the session, not cut.
   */
  readOnly?: boolean;
}

const SESSION_ID = /^[a-z]-[0-9a-f-]{8,40}$/;
/** The start journal, in the store folder (not sessions/, which holds only transcripts). */
export const START_JOURNAL = 'starts.journal';

export class SessionStore {
  private readonly open = new Map<string, Session>();
  private readonly loading = new Map<string, Promise<Session>>();
  private readonly lastUsed = new Map<string, number>();
  /** Forks deleted while their own file was still to be made: it is not made. */
  private readonly removedBeforeMade = new Set<string>();
  /** Sessions created with flushOffThread whose first bytes are still being written or flushed. */
  private readonly flushes = new Map<string, StartWrites>();
  /** What evicted sessions had spent: budgets read it without streaming the session in again. */
  private readonly spentIndex = new Map<string, Usage>();
  /** The same sessions' requests one by one, with their model: what their cost is computed from. */
  private readonly billsIndex = new Map<string, { model: string; bills: readonly BilledRequest[] }>();
  /** Leases held per loaded session: eviction waits for none. */
  private readonly holders = new Map<string, number>();
  private readonly now: () => number;
  /** Entries by id across loaded sessions: forks revived from 0.1.0 bootstraps share their inherited entries. */
  private readonly entriesById = new Map<string, Entry>();
  private readonly prompts = new Map<string, string>();
  private readonly toolSets = new Map<string, SessionHeader['tools']>();
  readonly sessionsDir: string;
  readonly segments: SegmentStore;
  private readonly readOnly: boolean;
  /** The sessions folder's fsync, shared by the files created together (offThreadFlush.ts). */
  private readonly sessionsFolder: FolderSync;
  /** Fork starts of one moment, flushed together (startJournal.ts, docs/design.md §4.7). */
  readonly starts: StartJournal;

  constructor(readonly storeDir: string, options: SessionStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.readOnly = options.readOnly === true;
    this.sessionsDir = path.join(storeDir, 'sessions');
    this.sessionsFolder = new FolderSync(this.sessionsDir);
    this.starts = new StartJournal(path.join(storeDir, START_JOURNAL));
    if (!this.readOnly) ensurePrivateDir(this.sessionsDir);
    this.segments = new SegmentStore(storeDir, { readOnly: this.readOnly });
  }

  static newSessionId(): string {
    return 's-' + randomUUID();
  }

  /**
   * Creates a session file holding its header and `initial` records (a fork's bootstrap), written in one
   * write: a crash leaves the file whole or torn. `flushOffThread` (a fork's start): the bytes also go to
   * the store's start journal, and the file is created and written on the thread pool; `started(id)`
   * settles once the journal's copy is written (a crash of the process keeps the fork: the next runtime
   * writes its file from it); records appended before the file is made wait for it (writerAfter).
   * `durable(id)` settles once the journal's fdatasync, shared with every start of the moment, is done and
   * the file written (a power loss keeps it). The file's own flush (and its folder's) follows in the
   * background; until it is done the journal keeps its bytes (startJournal.ts). `createFileAfter`: the
   * file's create waits for it (the journal's copy does not). Otherwise the file is written at once.
   */
  create(header: SessionHeader, initial: readonly SessionRecord[] = [], options: { flushOffThread?: boolean; createFileAfter?: Promise<unknown> } = {}): Session {
    const file = this.fileOf(header.id);
    // A fork's id is fresh (a random UUID), and its create is `wx`: no stat on the runtime's thread.
    if (!options.flushOffThread && fs.existsSync(file)) throw new Error(`session ${header.id} already exists`);
    // The lines as JSON.stringify writes them, with what forks share encoded once for all of them: the
    // header's system prompt and tools, the bootstrap's inherited entries written in full. Kept in pieces
    // for a fork's start: its journal frame is one writev of them (no copy on the runtime's thread).
    const parts = [...headerParts(header), ...initial.flatMap(recordParts)];
    const length = parts.reduce((n, part) => n + part.length, 0);
    try {
      if (options.flushOffThread) {
        const { started, flushed, fileWritten } = this.createJournaled(header.id, file, parts, options.createFileAfter);
        const watched = { started: this.watchStart(header.id, file, started), flushed: this.watchFlush(header.id, file, started, flushed), fileWritten };
        // Handled here so a failure nobody awaits cannot end the process; started() and durable() still reject.
        watched.started.catch(() => undefined);
        watched.flushed.catch(() => undefined);
        this.flushes.set(header.id, watched);
      }
      else writeWhole(file, Buffer.concat(parts, length), 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`session ${header.id} already exists`);
      // A full disk: no session (or fork) file stays behind, and the caller gets the transcript's clear error.
      fs.rmSync(file, { force: true });
      throw new TranscriptWriteError(file, error);
    }
    const open = () => new JsonlWriter(file);
    const fileWritten = this.flushes.get(header.id)?.fileWritten;
    const session = new Session(header, fileWritten ? writerAfter(file, fileWritten, open) : lazyWriter(open), header.parent ? undefined : this.segments);
    session.fileBytes(length);
    this.open.set(header.id, session);
    this.lastUsed.set(header.id, this.now());
    return session;
  }

  /**
   * `started` resolves once `bytes` are written in the start journal: a crash of the process keeps them, and
   * the next runtime writes the fork's file from them. The file's create and write go on beside it
   * (`fileWritten`: appends wait for it, writerAfter). `flushed` resolves once the journal's copy is flushed
   * and the file written. On a failure of either it rejects only after the file's create has settled (so a
   * removal cannot precede it), with `created` false when the file was never made, and the journal's copy dropped.
   */
  private createJournaled(id: string, file: string, bytes: readonly Buffer[], createAfter?: Promise<unknown>): StartWrites {
    const { written, flushed: fileFlushed } = createThenFlushOffThread(file, bytes, this.sessionsFolder, createAfter, () => !this.removedBeforeMade.has(id));
    const journaled = this.starts.add(id, bytes);
    // Not retired on a failed flush: the journal keeps the bytes, and the next runtime writes the file from them.
    fileFlushed.then(() => this.starts.retire(id), () => undefined);
    const failing = async (error: unknown): Promise<never> => {
      const fileError = await fileFlushed.then(() => undefined, (problem: unknown) => problem as { created?: boolean });
      // Safe to drop: the fork does not run and fails with the error below; a drop frame not written leaves the frame for the next runtime, which writes a fork nobody was told about.
      await this.starts.drop(id).catch(() => undefined);
      throw Object.assign(error as Error, { created: fileError?.created !== false });
    };
    const started = journaled.written.catch(failing);
    const fileMade = written.catch(async (error: unknown) => {
      // A fork file that could not be written would come back "queued" in the next runtime: it goes (its fork fails).
      const made = await failing(error).catch((problem: { created?: boolean }) => problem);
      if (made.created !== false) fs.rmSync(file, { force: true });
      throw error;
    });
    const flushed = Promise.all([journaled.flushed.catch(failing), fileMade]).then(() => undefined);
    return { started, flushed, fileWritten: written };
  }

  /**
   * Writes the fork files a crash left only in the start journal (missing or torn), before anything is
   * loaded: run by the runtime that owns the store, at start-up. Returns what it did, for the log.
   */
  recoverStarts(): { written: string[]; problems: string[] } {
    return recoverStarts(path.join(this.storeDir, START_JOURNAL), this.sessionsDir);
  }

  /**
   * Settles when a session made with `flushOffThread` is written in the start journal (at once for any
   * other). A failed start rejects with TranscriptWriteError and leaves no session behind, in
   * memory or on disk.
   */
  started(id: string): Promise<void> {
    return this.flushes.get(id)?.started ?? Promise.resolve();
  }

  /**
   * Settles when a session made with `flushOffThread` would survive a power loss: its copy in the start
   * journal flushed and its own file written (at once for any other). A failed flush rejects with an error that says so;
   * the session stays (its fork fails), and a drop frame is tried so no later runtime brings it back.
   */
  durable(id: string): Promise<void> {
    return this.flushes.get(id)?.flushed ?? Promise.resolve();
  }

  private async watchStart(id: string, file: string, started: Promise<void>): Promise<void> {
    try {
      await started;
    } catch (error) {
      this.open.get(id)?.close();
      this.open.delete(id);
      this.lastUsed.delete(id);
      this.flushes.delete(id);
      // Only a file this create made: `wx` refused an existing one (a name taken meanwhile) and leaves it.
      if ((error as { created?: boolean }).created !== false) fs.rmSync(file, { force: true });
      throw new TranscriptWriteError(file, error);
    }
  }

  private async watchFlush(id: string, file: string, started: Promise<void>, flushed: Promise<void>): Promise<void> {
    try {
      await started;
      await flushed.catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        const why = error instanceof Error ? error.message : String(error);
        throw Object.assign(new Error(`its start could not be flushed to disk (${code === undefined ? '' : `${this.starts.file}: `}${why}), so it would not survive a power loss; nothing was sent for it`), { code, cause: error });
      });
    } finally {
      this.flushes.delete(id);
    }
  }

  /** Every session id on disk, and the forks started whose own file is not made yet (the journal holds them). */
  ids(): string[] {
    if (this.readOnly && !fs.existsSync(this.sessionsDir)) return [];
    const onDisk = fs.readdirSync(this.sessionsDir).filter(name => name.endsWith('.jsonl')).map(name => name.slice(0, -'.jsonl'.length));
    return [...onDisk, ...this.startingWithoutFile(new Set(onDisk))];
  }

  /** Forks in memory whose start is under way and whose file is not in `listed` (it is made after their burst of starts). */
  private startingWithoutFile(listed: ReadonlySet<string>): string[] {
    return [...this.flushes.keys()].filter(id => this.open.has(id) && !listed.has(id));
  }

  /** A session already in memory (created or opened), without touching the disk. */
  loaded(id: string): Session | undefined {
    const session = this.open.get(id);
    if (session) this.lastUsed.set(id, this.now());
    return session;
  }

  /**
   * The session, streamed in from disk on first use (never one synchronous read of a whole file, so a
   * session of tens of MB does not stall forks that stream meanwhile). A fork whose inherited segments
   * are missing or damaged still opens, marked `unavailable` with the reason.
   */
  async get(id: string): Promise<Session> {
    const cached = this.loaded(id);
    if (cached) {
      // A fork just started from a parent's tail: its history is readable once its inherited entries are in.
      await cached.inheritedReady();
      return cached;
    }
    const pending = this.loading.get(id);
    if (pending) return pending;
    if (!SESSION_ID.test(id)) throw new SessionNotFoundError(`no session with id ${JSON.stringify(id)}`);
    const file = this.fileOf(id);
    if (!fs.existsSync(file)) throw new SessionNotFoundError(`no session with id ${id}`);
    const load = this.load(id, file).finally(() => this.loading.delete(id));
    this.loading.set(id, load);
    return load;
  }

  /**
   * The session with a lease on it: kept in memory (never evicted) until released. Concurrent calls for
   * a session not in memory share one load.
   */
  async hold(id: string): Promise<SessionLease> {
    const session = await this.get(id);
    // Nothing can run between get() resolving and here (no timer runs between microtasks): not evicted.
    return this.leaseOf(id, session);
  }

  /** A lease on a session already in memory (just created, or held by someone else), else undefined. */
  holdLoaded(id: string): SessionLease | undefined {
    const session = this.loaded(id);
    return session && this.leaseOf(id, session);
  }

  /** Runs `use` with the session held, releasing it afterwards whatever happens. */
  async using<T>(id: string, use: (session: Session) => T | Promise<T>): Promise<T> {
    const lease = await this.hold(id);
    try {
      return await use(lease.session);
    } finally {
      lease.release();
    }
  }

  /** Whether anyone holds the session. */
  isHeld(id: string): boolean {
    return (this.holders.get(id) ?? 0) > 0;
  }

  private leaseOf(id: string, session: Session): SessionLease {
    this.holders.set(id, (this.holders.get(id) ?? 0) + 1);
    let released = false;
    return {
      session,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.holders.get(id) ?? 1) - 1;
        if (left > 0) this.holders.set(id, left);
        else this.holders.delete(id);
        if (this.open.get(id) === session) this.lastUsed.set(id, this.now());
      },
    };
  }

  private async load(id: string, file: string): Promise<Session> {
    let session: Session | undefined;
    let byValue = false;
    const writerOf = () => new JsonlWriter(file);
    // Not async: only a bootstrap by reference waits (for its segments); other records return nothing.
    const { tornBytes, bytes } = await streamJsonl<SessionRecord>(file, (record, end): Promise<void> | undefined => {
      if (!session) {
        if (record.type !== 'header') throw new Error(`session file ${file} has no header`);
        // The writer opens after the torn tail is cut; until then replays write nothing.
        session = new Session(this.internHeader(record.header), lazyWriter(writerOf), record.header.parent ? undefined : this.segments);
        session.ledger.requestsOf = other => this.open.get(other)?.requests();
        session.fileBytes(end);
        return undefined;
      }
      if (record.type === 'bootstrap' && record.bootstrap.history) return this.applyRefs(session, record.bootstrap, record.bootstrap.history);
      if (record.type === 'bootstrap') byValue = true;
      session.replay(record, end);
      return undefined;
    }, line => {
      if (!session) throw new Error(`session file ${file} has no header (line ${line} is damaged)`);
      session.noteDamagedLine(line);
    });
    if (!session) throw new Error(`session file ${file} has no header`);
    if (session.header.parent && !session.bootstrap) {
      // A fork without its launch record cannot run, but it existed: it is listed as damaged, and its file
      // stays as it is (nothing is appended to it) for the user or `doctor` to look at.
      session.markUnavailable(standInBootstrap(session.header), launchRecordProblem(tornBytes, session.damage));
      log(`fork ${id}: ${session.unavailable}`);
    } else {
      session.tornBytes = tornBytes;
      if (!this.readOnly) dropTornTail(file, tornBytes);
      session.fileBytes(bytes - tornBytes);
    }
    session.closeDamage();
    // A repaired line is said once, by the doctor that repaired it; the rest at every load until repaired.
    for (const d of unrepaired(session.damage)) log(`session ${id}: ${describeDamage(d)}`);
    session.measureTail();
    // Only 0.1.0 bootstraps repeat their history; forks by reference share their parent's entries already.
    if (byValue) session.internInherited(entry => this.intern(entry));
    this.open.set(id, session);
    this.lastUsed.set(id, this.now());
    return session;
  }

  /** A fork's header repeats its parent's system prompt and tools: one copy in memory for all of them. */
  private internHeader(header: SessionHeader): SessionHeader {
    const prompt = this.prompts.get(header.systemPrompt);
    const toolsKey = JSON.stringify(header.tools);
    const tools = this.toolSets.get(toolsKey);
    if (prompt === undefined) this.prompts.set(header.systemPrompt, header.systemPrompt);
    if (tools === undefined) this.toolSets.set(toolsKey, header.tools);
    return { ...header, systemPrompt: prompt ?? header.systemPrompt, tools: tools ?? header.tools };
  }

  /** Reads a bootstrap's inherited history back from its segments, each checked against its hash. */
  private async applyRefs(session: Session, bootstrap: ForkBootstrap, refs: HistoryRefs): Promise<void> {
    try {
      const ranges = refs.parts.filter((part): part is ChainRange => !('entries' in part));
      if (ranges.length > 0 && refs.head === null) throw new SegmentError('the bootstrap names sealed history but no segment');
      // A v2 chain is read from the parent's transcript's seal records when the parent is not loaded.
      const resolved = refs.head === null ? [] : await this.segments.resolve(refs.head, ranges, session.header.parent?.sessionId);
      const inherited: Entry[] = [];
      let next = 0;
      // Unsealed entries written in full: shared with the parent when it is open (they are its tail).
      const parent = session.header.parent && this.open.get(session.header.parent.sessionId);
      for (const part of refs.parts) {
        if ('entries' in part) for (const entry of part.entries) inherited.push(parent?.recentEntry(entry.id) ?? deepFreeze(entry));
        else for (const entry of resolved[next++]) inherited.push(entry);
      }
      session.applyBootstrap(bootstrap, inherited);
    } catch (error) {
      if (!(error instanceof SegmentError)) throw error;
      session.markUnavailable(bootstrap, `its inherited history cannot be read: ${error.message}`);
    }
  }

  /**
   * Closes sessions (chats and forks) nobody used for `idleMs` and nobody holds (a running turn or fork
   * holds its session); they are streamed in again on their next use.
   */
  evictIdle(idleMs: number): string[] {
    const evicted: string[] = [];
    const now = this.now();
    for (const id of this.open.keys()) {
      if (this.isHeld(id) || now - (this.lastUsed.get(id) ?? 0) < idleMs) continue;
      this.drop(id);
      evicted.push(id);
    }
    return evicted;
  }

  /**
   * What a session has spent, without loading it: from memory, else as it was when evicted (an evicted
   * session cannot spend). Undefined for one not read since start-up (see readSpent).
   */
  spentOf(id: string): Usage | undefined {
    return this.open.get(id)?.spent ?? this.spentIndex.get(id);
  }

  /** Like spentOf, request by request with the session's model (see pricing.ts, priceRequests). */
  billsOf(id: string): { model: string; bills: readonly BilledRequest[] } | undefined {
    const session = this.open.get(id);
    return session ? { model: session.header.settings.model, bills: session.bills } : this.billsIndex.get(id);
  }

  /** Makes spentOf known for a session on disk, reading it in if it was not since start-up. */
  async readSpent(id: string): Promise<void> {
    if (this.spentOf(id) || !SESSION_ID.test(id) || !fs.existsSync(this.fileOf(id))) return;
    const session = await this.get(id);
    this.remember(session);
  }

  private remember(session: Session): void {
    this.spentIndex.set(session.id, session.spent);
    this.billsIndex.set(session.id, { model: session.header.settings.model, bills: session.bills });
  }

  /** Closes a session and forgets it in memory (its file stays). */
  drop(id: string): void {
    const session = this.open.get(id);
    if (session) this.remember(session);
    session?.close();
    this.open.delete(id);
    this.lastUsed.delete(id);
    this.holders.delete(id);
    this.segments.forgetEntriesOf(id);
  }

  /**
   * Deletes a session's file (after closing it). Its segments go once nothing references them (retention.ts);
   * a chat whose forks remain keeps its transcript, retired, for the history they reference in it.
   */
  removeFile(id: string): void {
    if (!SESSION_ID.test(id)) throw new SessionNotFoundError(`no session with id ${JSON.stringify(id)}`);
    const making = this.flushes.get(id)?.fileWritten;
    if (making) this.removedBeforeMade.add(id);
    this.drop(id);
    this.spentIndex.delete(id);
    this.billsIndex.delete(id);
    const referenced = fs.existsSync(this.fileOf(id)) && !this.headerOf(id)?.parent && this.listHeaders().some(h => h.parent?.sessionId === id);
    if (referenced) this.segments.retire(id);
    else fs.rmSync(this.fileOf(id), { force: true });
    // A fork deleted before its own file was made (after its burst of starts) gets none; one whose create had
    // begun loses the file once it is written. Safe to drop: a create that failed left no file.
    making?.then(() => fs.rmSync(this.fileOf(id), { force: true }), () => undefined).finally(() => this.removedBeforeMade.delete(id));
    // Safe to drop: a fork deleted within moments of its start whose drop frame cannot be written comes back after a crash, as it was before the delete.
    this.starts.drop(id).catch(() => undefined);
  }

  /** Opened sessions (for tests and the bench). */
  openIds(): string[] {
    return [...this.open.keys()];
  }

  /** Headers of every session on disk (first line only, so listing stays cheap). */
  listHeaders(): SessionHeader[] {
    const headers: SessionHeader[] = [];
    const listed = new Set<string>();
    for (const name of fs.readdirSync(this.sessionsDir)) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      listed.add(id);
      const open = this.open.get(id);
      if (open) {
        headers.push(open.header);
        continue;
      }
      const header = readHeader(path.join(this.sessionsDir, name));
      if (header) headers.push(header);
    }
    // A fork just started names its parent before its own file exists: what references a chat includes it.
    for (const id of this.startingWithoutFile(listed)) headers.push(this.open.get(id)!.header);
    return headers.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** One session's header: from memory, else its file's first line (the session is not loaded). */
  headerOf(id: string): SessionHeader | undefined {
    const open = this.open.get(id);
    if (open) return open.header;
    if (!SESSION_ID.test(id)) return undefined;
    try {
      return readHeader(this.fileOf(id));
    } catch {
      return undefined;
    }
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
    this.starts.close();
  }
}

function readHeader(file: string): SessionHeader | undefined {
  try {
    const record = JSON.parse(readFirstLine(file)) as SessionRecord;
    return record.type === 'header' ? record.header : undefined;
  } catch {
    // A file torn before its header was committed holds no session.
    return undefined;
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
