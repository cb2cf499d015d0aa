// One session (parent chat or fork): fixed header plus the committed entries of its active history.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryKind, Message, SessionHeader, Usage } from '../../common/transcript';
import type { BilledRequest } from '../../common/pricing';
import type { ApprovalMode } from '../../common/approval';
import { deepFreeze } from '../../common/transcript';
import type { RequestRecord } from './records';
import { SessionLedger } from './sessionLedger';
import { ActiveHistory } from './activeHistory';
import type { JsonlWriter } from './jsonl';
import type { CheckpointRecord, ForkBootstrap, ForkStatus, HistoryPart, HistoryRefs, RewoundCode, SessionRecord } from './records';
import type { SegmentStore } from './segments';
import { Picked } from './picked';
import { closeOpenExchanges, repairRecord, unrepaired } from './damage';
import type { LineDamage, RepairRecord } from './damage';
import { RewindStack } from './rewindStack';
import { SealedChain } from './sealedChain';
import type { SealedState } from './sealedChain';
import type { PrefixHome } from '../agent/requestPrefix';

/** A fork before its first answer: where the parent's latest request ended, and the fork's closing entry. */
export interface ForkFirstRequest {
  /** Index of the last entry of the parent's latest request (its breakpoints are kept). */
  parentRequestEnd: number;
  /** Index of the closing entry (placeholder results + directive). */
  closingAt: number;
}

export type LoadedBootstrap = Omit<ForkBootstrap, 'inherited' | 'history'> & { inheritedCount: number };

/**
 * A session's history as of a moment: its array and how long it was. The array's first `length` entries
 * never change (commits append to it, a rewind replaces it), so a snapshot costs no copy.
 */
export interface HistorySnapshot { entries: readonly Entry[]; length: number }

/** What a rewind changes, kept so it can be undone. */
interface ViewState { view: Entry[]; sealed?: SealedState }

export function newEntryId(): string {
  return 'e-' + randomUUID().slice(0, 13);
}

export class Session {
  private readonly active = new ActiveHistory();
  /** Forks only: the launch record without its inherited entries (those live in the view, shared). */
  bootstrap?: LoadedBootstrap;
  status?: ForkStatus;
  /** Forks whose inherited history could not be read back (a missing or damaged segment): why. */
  unavailable?: string;
  /** Bytes of a torn last line loading found (cut off, unless the store was opened read-only). */
  tornBytes = 0;
  /** Lines of its file that did not parse when it was loaded, and what was done about each. */
  readonly damage: LineDamage[] = [];
  /** The history as the file's records gave it, before closeDamage changed it in memory. */
  private replayedView?: readonly Entry[];
  private ownResponses = 0;
  private closed = false;
  /** Sealed history (segments.ts), parents only (forks are never forked). */
  private readonly chain?: SealedChain;
  /** What it was billed and sent. */
  readonly ledger: SessionLedger;
  private chatApproval?: ApprovalMode;
  /**
   * The leading messages of this history's latest request, built once (agent/requestPrefix.ts): this
   * session's own slot, which its requests (a chat's) or its forks' first requests fill.
   */
  prefixHome: PrefixHome = {};
  /**
   * A fork started in this runtime: its parent's slot, which its first request and its siblings' share. Its
   * own stays its own, so a fork of it fills that one, not its grandparent's.
   */
  parentPrefixHome?: PrefixHome;
  /** The API once refused this history's thinking as bound elsewhere: later requests ask it to drop what fails (agent/loop.ts). */
  dropsMismatchedThinking = false;
  /** Code checkpoints in record order (checkpoint/codeAt.ts finds an entry's). */
  private readonly codeCheckpoints: CheckpointRecord[] = [];
  private readonly rewinds = new RewindStack<ViewState>();
  /** A fork whose inherited entries are still being read (a parent known from its tail): settles when they are. */
  private inheriting?: Promise<void>;
  private pendingFill?: () => Promise<void>;

  /** `segments`: where this session seals its history (parent sessions; forks are never forked). */
  constructor(readonly header: SessionHeader, private readonly writer: JsonlWriter, segments?: SegmentStore) {
    deepFreeze(header);
    this.ledger = new SessionLedger(header.id);
    if (segments) this.chain = new SealedChain(segments, header.id);
  }

  get id(): string {
    return this.header.id;
  }

  /**
   * What requests carry, oldest first: after a compaction, the startup entry, the latest summary and
   * the entries after it. Entries are deep-frozen and shared, never copied.
   */
  entries(): readonly Entry[] {
    return this.active.requestEntries();
  }

  /** The whole active history, including what summaries replaced (for transcripts shown to people). */
  history(): readonly Entry[] {
    return this.view;
  }

  /** The history as it is now, without copying it (see HistorySnapshot). */
  snapshot(): HistorySnapshot {
    const entries = this.view;
    return { entries, length: entries.length };
  }

  lastEntry(): Entry | undefined {
    return this.active.last();
  }

  private get view(): Entry[] {
    return this.active.entries;
  }

  /** Appends a record to this session's file (committed when it returns), keeping track of where it ended. */
  private write(record: SessionRecord): void {
    const bytes = this.writer.append(record);
    this.chain?.recorded(this.chain.tail.fileEnd + bytes.length, record.type === 'entry', bytes);
  }

  /** Its file holds `bytes` of committed records (after its header, or once loaded). */
  fileBytes(bytes: number): void {
    if (!this.chain) return;
    this.chain.tail.fileEnd = bytes;
    this.chain.settle(this.view.length);
  }

  /** Replays a record read from disk (no write); `end`: the byte offset just past its line. */
  replay(record: SessionRecord, end?: number): void {
    if (end !== undefined) this.chain?.recorded(end, record.type === 'entry');
    this.replayRecord(record);
    this.chain?.settle(this.view.length);
  }

  private replayRecord(record: SessionRecord): void {
    if (record.type === 'entry') this.push(deepFreeze(record.entry));
    else if (record.type === 'rewind') this.applyRewind(record.toEntryId, record.code);
    else if (record.type === 'rewind-undo') this.applyUndo();
    else if (record.type === 'checkpoint') this.codeCheckpoints.push(deepFreeze(record.checkpoint));
    else if (record.type === 'bootstrap') this.applyBootstrap(record.bootstrap, record.bootstrap.inherited ?? []);
    else if (record.type === 'status') this.status = record.status;
    else if (record.type === 'seal' && this.chain) this.active.replace(this.chain.replaySeal(record.hash, record.count, record.segment, this.view, this.damage));
    else if (record.type === 'spend') this.ledger.bill(record.usage, record.time);
    else if (record.type === 'request') this.ledger.replayRequest(record.request);
    else if (record.type === 'repair') this.applyRepair(record);
    else if (record.type === 'approval') this.noteApproval(record.approvalMode);
  }

  /** The approval mode of this chat's latest turn (undefined: none recorded, as in older files). */
  get approvalMode(): ApprovalMode | undefined {
    return this.chatApproval;
  }

  /** Records the mode a turn runs with, once per change. */
  recordApprovalMode(approvalMode: ApprovalMode): void {
    if (this.chatApproval === approvalMode) return;
    this.write({ type: 'approval', approvalMode, time: new Date().toISOString() } satisfies SessionRecord);
    this.noteApproval(approvalMode);
  }

  private noteApproval(approvalMode: ApprovalMode): void {
    this.chatApproval = approvalMode;
    if (this.chain) this.chain.approvalMode = approvalMode;
  }

  /** Usage billed to this session: its own entries' usage plus attempts that left none. */
  get spent(): Usage {
    return this.ledger.spent;
  }

  /** Every request billed to this session, oldest first (the parts of `spent`). */
  get bills(): readonly BilledRequest[] {
    return this.ledger.bills;
  }

  /** The requests this session sent that got a response, for the cache explorer. */
  requests(): readonly RequestRecord[] {
    return this.ledger.requests();
  }

  recordSpend(usage: Usage, why: string): void {
    const time = new Date().toISOString();
    this.write({ type: 'spend', usage, time, why } satisfies SessionRecord);
    this.ledger.bill(usage, time);
  }

  checkpoints(): readonly CheckpointRecord[] {
    return this.codeCheckpoints;
  }

  recordCheckpoint(checkpoint: CheckpointRecord): void {
    this.write({ type: 'checkpoint', checkpoint } satisfies SessionRecord);
    this.codeCheckpoints.push(deepFreeze(checkpoint));
  }

  recordRequest(request: RequestRecord): void {
    this.ledger.recordRequest(request, stored => this.write({ type: 'request', request: stored } satisfies SessionRecord));
  }

  /** A fork's bootstrap record: the inherited entries by reference when `history` is given, else in full. */
  static bootstrapRecord(bootstrap: Omit<ForkBootstrap, 'inherited' | 'history'>, inherited: readonly Entry[], history?: HistoryRefs): SessionRecord {
    // `history` first: start-up reference counting reads only the start of the line (retention.ts).
    return { type: 'bootstrap', bootstrap: history ? { history, ...bootstrap } : { ...bootstrap, inherited: [...inherited] } };
  }

  /** A fork whose inherited history cannot be read back: its launch record only, and why. */
  markUnavailable(bootstrap: ForkBootstrap, reason: string): void {
    this.applyBootstrap(bootstrap, []);
    this.unavailable = reason;
  }

  /**
   * How a fork names `selected` (entries of this session's history, in order): ranges of the sealed
   * chain, and the few unsealed entries in full. Undefined when this session has no segment store.
   */
  historyRefs(selection: readonly Entry[] | Picked): HistoryRefs | undefined {
    if (!this.chain) return undefined;
    if (!this.closed && this.chain.overBounds(this.view.length)) this.chain.trySeal(this.view, record => this.write(record));
    return this.chain.refs(this.view, selection);
  }

  writeStatus(status: ForkStatus): void {
    this.write({ type: 'status', status } satisfies SessionRecord);
    this.status = status;
  }

  /**
   * A fork's requests keep the parent's latest request's cache breakpoints until the fork has answered
   * once, so its first request repeats the parent's bytes exactly (docs/design.md §4.5). Not after the fork
   * compacted itself: its request view no longer starts with the inherited entries.
   */
  inheritedBreakpointsEnd(): ForkFirstRequest | undefined {
    if (!this.bootstrap || this.ownResponses > 0 || this.bootstrap.parentRequestEnd < 0) return undefined;
    if (this.ownEntries().some(entry => entry.kind === 'summary')) return undefined;
    return { parentRequestEnd: this.bootstrap.parentRequestEnd, closingAt: this.bootstrap.inheritedCount };
  }

  /** Entries this session committed itself (for forks: after the bootstrap). */
  ownEntries(): readonly Entry[] {
    if (this.active.unbuilt) return [];
    return this.bootstrap ? this.view.slice(this.bootstrap.inheritedCount + 1) : this.view;
  }

  /** Commits a new entry: written and flushed, then visible. */
  commit(kind: EntryKind, message: Message, extra: Pick<Entry, 'usage' | 'stopReason' | 'replacesUpTo' | 'thinkingBindings' | 'inputTransformations'> = {}): Entry {
    const entry: Entry = deepFreeze({ id: newEntryId(), kind, time: new Date().toISOString(), message, ...extra });
    this.write({ type: 'entry', entry } satisfies SessionRecord);
    this.push(entry);
    if (this.chain?.grew(entry, this.view.length)) this.chain.trySeal(this.view, record => this.write(record));
    return entry;
  }

  /** Loading met a line that does not parse; `line` is its number in the file. */
  noteDamagedLine(line: number): void {
    this.damage.push({ line, at: this.view.length });
    if (this.chain) this.chain.tail.plain = false;
  }

  /** After loading: an exchange a damaged line left half closed is closed in memory (the file is not rewritten). */
  closeDamage(): void {
    this.replayedView = this.view;
    const open = unrepaired(this.damage).filter(d => !d.recoveredFrom);
    if (open.length === 0) return;
    const closed = closeOpenExchanges(this.view, open[0].line);
    if (!closed) return;
    // The history in memory no longer matches the file's lines: what is unsealed is sealed as a copy.
    if (this.chain) this.chain.tail.plain = false;
    this.active.replace(closed.view);
    for (const d of open) d.closed = closed.closed;
  }

  /**
   * Writes what loading mended in memory (entries read back from segments, exchanges closed) as a `repair`
   * record, so later loads need neither the segment nor the closing. Returns the lines it covered.
   */
  repairDamage(): number[] {
    const view = this.view;
    const record = repairRecord(this.damage, view, this.replayedView ?? view);
    if (!record) return [];
    this.write(record);
    // In memory the history is already what the record says; only the bookkeeping follows it.
    this.applyRepair(record);
    return record.lines;
  }

  private applyRepair(record: RepairRecord): void {
    const view = this.view;
    if (record.keep > view.length || (record.keep > 0 ? view[record.keep - 1].id : null) !== record.keepLastId) return;
    const entries = record.entries.map(entry => (Object.isFrozen(entry) ? entry : deepFreeze(entry)));
    this.active.replace(view.slice(0, record.keep).concat(entries), entries.some(e => e.kind === 'summary'));
    // The record is what this history is now: seals written after it follow it again.
    this.chain?.repaired(this.view, record.keep);
    for (const d of this.damage) if (record.lines.includes(d.line)) d.repaired = record.time;
  }

  /** An entry of the unsealed tail (or just before it), by id: forks revived while this session is open share it. */
  recentEntry(id: string): Entry | undefined {
    return this.chain?.recentEntry(this.view, id);
  }

  /** After loading: the unsealed tail's size (bounded: everything before the last seal record is sealed). */
  measureTail(): void {
    this.chain?.measure(this.view);
  }

  /**
   * Makes `toEntryId` the last entry of the active history (null: empty). Returns false if unknown.
   * `code`: what the same rewind did to the files (recorded with it, so undoing it can put them back).
   */
  rewindTo(toEntryId: string | null, code?: RewoundCode): boolean {
    if (!code && toEntryId === (this.lastEntry()?.id ?? null)) return true;
    if (toEntryId !== null && !this.view.some(e => e.id === toEntryId)) return false;
    // Sealed first, while the unsealed entries are still a plain run of the file (the rewind would cut it).
    if (this.chain && this.chain.sealed < this.view.length) this.chain.trySeal(this.view, record => this.write(record));
    this.write({ type: 'rewind', toEntryId, time: new Date().toISOString(), ...(code ? { code } : {}) } satisfies SessionRecord);
    this.applyRewind(toEntryId, code);
    this.chain?.settle(this.view.length);
    return true;
  }

  /** Whether a rewind cut `entryId` off the active history (it may be back after an undo). */
  wasRewoundAway(entryId: string | null): boolean {
    return entryId !== null && this.rewinds.wasCut(entryId);
  }

  /** The latest rewind, while it can be undone (nothing committed since); undefined otherwise. */
  undoableRewind(): { code?: RewoundCode } | undefined {
    const frame = this.rewinds.latest();
    return frame && { code: frame.code };
  }

  /** Takes the latest rewind back; `code`: what undoing it did to the files. False when none can be. */
  undoRewind(code?: RewoundCode): boolean {
    if (!this.rewinds.latest()) return false;
    this.write({ type: 'rewind-undo', time: new Date().toISOString(), ...(code ? { code } : {}) } satisfies SessionRecord);
    this.applyUndo();
    this.chain?.settle(this.view.length);
    return true;
  }

  private applyUndo(): void {
    const state = this.rewinds.pop()?.state;
    if (!state) return;
    this.active.replace(state.view);
    if (state.sealed) this.chain?.restore(state.sealed, this.view);
  }

  private push(entry: Entry): void {
    this.rewinds.committed();
    this.active.push(entry);
    if (entry.kind === 'response') this.ownResponses++;
    if (entry.usage) this.ledger.bill(entry.usage, entry.time);
  }

  /**
   * `inherited` are frozen entries: shared with the parent (a Picked of its history: the fork's list is
   * built on first use), read back from segments, or (0.1.0 bootstraps) frozen here.
   */
  applyBootstrap(bootstrap: Omit<ForkBootstrap, 'inherited' | 'history'> & Partial<Pick<ForkBootstrap, 'inherited' | 'history'>>, inherited: readonly Entry[] | Picked): void {
    const { inherited: _full, history: _refs, ...rest } = bootstrap;
    this.bootstrap = deepFreeze({ ...rest, inheritedCount: inherited.length });
    const closing = deepFreeze(bootstrap.closing);
    if (inherited instanceof Picked) return this.active.inherit(inherited, closing);
    // concat allocates exactly its length (a push after a copy would grow the backing store by half).
    const view = inherited.concat(closing);
    for (const entry of view) if (!Object.isFrozen(entry)) deepFreeze(entry);
    this.active.replace(view, true);
  }

  /**
   * `fill` completes the inherited entries this fork's bootstrap named (fork/history/tailParent.ts). It starts
   * when someone first waits for the history (inheritedReady: the fork's run, SessionStore.get), so nothing
   * proportional to the parent runs before fork/start has answered; until it settles nothing may read the
   * history. When it fails the fork is unavailable with the reason, as one revived with a missing segment is.
   */
  inheritLater(fill: () => Promise<void>): void {
    this.pendingFill = fill;
  }

  /** Settles once the history can be read (at once, but for a fork whose inherited entries are being read). */
  inheritedReady(): Promise<void> {
    const fill = this.pendingFill;
    if (fill) {
      this.pendingFill = undefined;
      const closing = this.active.last()!;
      this.inheriting = fill().then(
        () => {
          this.inheriting = undefined;
        },
        (error: unknown) => {
          this.inheriting = undefined;
          this.unavailable = `its inherited history cannot be read: ${error instanceof Error ? error.message : String(error)}`;
          this.active.replace([closing]);
        },
      );
    }
    return this.inheriting ?? Promise.resolve();
  }

  private applyRewind(toEntryId: string | null, code?: RewoundCode): void {
    const index = toEntryId === null ? -1 : this.view.findIndex(e => e.id === toEntryId);
    if (toEntryId !== null && index < 0) return;
    const before = this.view.length;
    this.rewinds.pushed({ state: { view: this.view, sealed: this.chain?.state() }, code }, this.view.slice(index + 1));
    this.active.replace(this.view.slice(0, index + 1));
    this.chain?.cut(this.view, before);
  }

  /** Settles once every record written so far is on disk (appends flush on the thread pool: jsonl.ts). */
  durable(): Promise<void> {
    return this.writer.durable();
  }

  close(): void {
    this.closed = true;
    this.writer.close();
  }

  /** Replaces inherited entries with equal ones already in memory, so revived forks share them. */
  internInherited(intern: (entry: Entry) => Entry): void {
    if (!this.bootstrap) return;
    for (let i = 0; i < this.bootstrap.inheritedCount; i++) this.view[i] = intern(this.view[i]);
    this.active.changed();
  }
}
