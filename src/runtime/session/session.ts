// One session (parent chat or fork): fixed header plus the committed entries of its active history.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryKind, Message, SessionHeader, Usage } from '../../common/transcript';
import type { BilledRequest } from '../../common/pricing';
import type { ApprovalMode } from '../../common/approval';
import { addUsage, deepFreeze, zeroUsage } from '../../common/transcript';
import type { RequestBase, RequestRecord } from './records';
import { resolveRequest, sharedWithPrevious, storedRequest, UNKNOWN_BLOCK } from '../cache/storedRequest';
import { requestViewOf } from '../../common/requestView';
import type { JsonlWriter } from './jsonl';
import type { CheckpointRecord, ForkBootstrap, ForkStatus, HistoryPart, HistoryRefs, RewoundCode, SessionRecord } from './records';
import type { SegmentStore } from './segments';
import { Picked } from './picked';
import { closeOpenExchanges, unrepaired } from './damage';
import type { LineDamage } from './damage';
import { RewindStack } from './rewindStack';
import { SealedChain } from './sealedChain';
import type { SealedState } from './sealedChain';

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
  /**
   * Everything in the active history, summaries and what they replaced included. Only ever appended to
   * in place; a rewind or bootstrap assigns a new array (HistorySnapshot relies on it).
   */
  private viewList: Entry[] = [];
  /** A fork created here: its inherited entries as spans of the parent's history, built into `viewList` on first use. */
  private lazyInherited?: { inherited: Picked; closing: Entry };
  /** The request view (docs/design.md §3), derived from `view` and cached until it changes. */
  private requestView?: readonly Entry[];
  /** Known: the view holds no summary, so the request view is the view itself (no scan). */
  private noSummary = true;
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
  /** Everything this session was billed for (its own requests, retried and rewound ones included). */
  private billed: Usage = zeroUsage();
  private chatApproval?: ApprovalMode;
  /** The same, request by request with its time: what prices apply to (a price depends on the day and prompt). */
  private readonly billList: BilledRequest[] = [];
  /** The API once refused this history's thinking as bound elsewhere: later requests ask it to drop what fails (agent/loop.ts). */
  dropsMismatchedThinking = false;
  /** One record per request that got a response, oldest first. */
  private readonly sent: RequestRecord[] = [];
  /** Another session's request records when it is in memory: what a fork's first request record extends. */
  requestsOf?: (sessionId: string) => readonly RequestRecord[] | undefined;
  /** Code checkpoints in record order (checkpoint/codeAt.ts finds an entry's). */
  private readonly codeCheckpoints: CheckpointRecord[] = [];
  private readonly rewinds = new RewindStack<ViewState>();

  /** `segments`: where this session seals its history (parent sessions; forks are never forked). */
  constructor(readonly header: SessionHeader, private readonly writer: JsonlWriter, segments?: SegmentStore) {
    deepFreeze(header);
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
    if (this.requestView) return this.requestView;
    this.requestView = this.noSummary ? this.view : requestViewOf(this.view);
    if (this.requestView === this.viewList) this.noSummary = true;
    return this.requestView;
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
    if (this.lazyInherited) return this.lazyInherited.closing;
    return this.view[this.view.length - 1];
  }

  private get view(): Entry[] {
    if (this.lazyInherited) {
      const { inherited, closing } = this.lazyInherited;
      this.lazyInherited = undefined;
      // One exactly sized array for the (possibly very long) list: what a fork's first request reads.
      this.viewList = inherited.toArray(closing);
    }
    return this.viewList;
  }

  private set view(entries: Entry[]) {
    this.lazyInherited = undefined;
    this.viewList = entries;
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
    else if (record.type === 'seal' && this.chain) this.view = this.chain.replaySeal(record.hash, record.count, record.segment, this.view, this.damage);
    else if (record.type === 'spend') this.bill(record.usage, record.time);
    else if (record.type === 'request') this.sent.push(deepFreeze(resolveRequest(record.request, base => this.requestBase(base))));
    else if (record.type === 'repair') this.applyRepair(record);
    else if (record.type === 'approval') this.chatApproval = record.approvalMode;
  }

  /** The approval mode of this chat's latest turn (undefined: none recorded, as in older files). */
  get approvalMode(): ApprovalMode | undefined {
    return this.chatApproval;
  }

  /** Records the mode a turn runs with, once per change. */
  recordApprovalMode(approvalMode: ApprovalMode): void {
    if (this.chatApproval === approvalMode) return;
    this.write({ type: 'approval', approvalMode, time: new Date().toISOString() } satisfies SessionRecord);
    this.chatApproval = approvalMode;
  }

  /** Usage billed to this session: its own entries' usage plus attempts that left none. */
  get spent(): Usage {
    return this.billed;
  }

  /** Every request billed to this session, oldest first (the parts of `spent`). */
  get bills(): readonly BilledRequest[] {
    return this.billList;
  }

  private bill(usage: Usage, time: string): void {
    this.billed = addUsage(this.billed, usage);
    this.billList.push({ usage, time });
  }

  /** The requests this session sent that got a response, for the cache explorer. */
  requests(): readonly RequestRecord[] {
    return this.sent;
  }

  recordSpend(usage: Usage, why: string): void {
    const time = new Date().toISOString();
    this.write({ type: 'spend', usage, time, why } satisfies SessionRecord);
    this.bill(usage, time);
  }

  checkpoints(): readonly CheckpointRecord[] {
    return this.codeCheckpoints;
  }

  recordCheckpoint(checkpoint: CheckpointRecord): void {
    this.write({ type: 'checkpoint', checkpoint } satisfies SessionRecord);
    this.codeCheckpoints.push(deepFreeze(checkpoint));
  }

  /** The record a stored request extends, when in memory; a same-session base must be the previous record read (a damaged line lost none). */
  private requestBase(base: RequestBase): RequestRecord | undefined {
    if (base.sessionId === undefined) return base.index === this.sent.length - 1 ? this.sent[base.index] : undefined;
    return this.requestsOf?.(base.sessionId)?.[base.index];
  }

  /**
   * Written as a difference (cache/storedRequest.ts): from this session's previous request, or for a fork's
   * first from the parent's request its verdict compared it with (the blocks the verdict found shared).
   */
  recordRequest(request: RequestRecord): void {
    const previous = this.sent.length - 1;
    const parentBase = request.explained?.baseline;
    const before = previous >= 0 ? this.sent[previous] : undefined;
    const stored = before ? storedRequest(request, { index: previous }, sharedWithPrevious(before.blocks, request.blocks))
      : parentBase && parentBase.sessionId !== this.id ? storedRequest(request, parentBase, request.explained?.matchedBlocks ?? 0)
      : request;
    this.write({ type: 'request', request: stored } satisfies SessionRecord);
    // Unknown blocks it shares with the previous record are kept unknown in memory too: what a reload reads.
    this.sent.push(deepFreeze(before?.blocks[0] === UNKNOWN_BLOCK ? resolveRequest(stored, () => before) : request));
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
    if (this.lazyInherited) return [];
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
    this.view = closed.view;
    this.requestView = undefined;
    for (const d of open) d.closed = closed.closed;
  }

  /**
   * Writes what loading mended in memory (entries read back from segments, exchanges closed) as a `repair`
   * record, so later loads need neither the segment nor the closing. Returns the lines it covered.
   */
  repairDamage(): number[] {
    const open = unrepaired(this.damage);
    if (open.length === 0) return [];
    const view = this.view;
    // From the first lost record, or from the first entry the closing changed, whichever comes first.
    let keep = Math.min(view.length, ...open.map(d => d.at));
    const replayed = this.replayedView ?? view;
    for (let i = 0; i < keep; i++) {
      if (replayed[i] !== view[i]) {
        keep = i;
        break;
      }
    }
    const record = { type: 'repair', lines: open.map(d => d.line), keep, keepLastId: keep === 0 ? null : view[keep - 1].id, entries: view.slice(keep), time: new Date().toISOString() } satisfies SessionRecord;
    this.write(record);
    // In memory the history is already what the record says; only the bookkeeping follows it.
    this.applyRepair(record);
    return record.lines;
  }

  private applyRepair(record: Extract<SessionRecord, { type: 'repair' }>): void {
    const view = this.view;
    if (record.keep > view.length || (record.keep > 0 ? view[record.keep - 1].id : null) !== record.keepLastId) return;
    const entries = record.entries.map(entry => (Object.isFrozen(entry) ? entry : deepFreeze(entry)));
    this.view = view.slice(0, record.keep).concat(entries);
    this.requestView = undefined;
    if (entries.some(e => e.kind === 'summary')) this.noSummary = false;
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
    this.view = state.view;
    if (state.sealed) this.chain?.restore(state.sealed, this.view);
    this.requestView = undefined;
  }

  private push(entry: Entry): void {
    this.rewinds.committed();
    this.view.push(entry);
    this.requestView = undefined;
    if (entry.kind === 'summary') this.noSummary = false;
    if (entry.kind === 'response') this.ownResponses++;
    if (entry.usage) this.bill(entry.usage, entry.time);
  }

  /**
   * `inherited` are frozen entries: shared with the parent (a Picked of its history: the fork's list is
   * built on first use), read back from segments, or (0.1.0 bootstraps) frozen here.
   */
  applyBootstrap(bootstrap: Omit<ForkBootstrap, 'inherited' | 'history'> & Partial<Pick<ForkBootstrap, 'inherited' | 'history'>>, inherited: readonly Entry[] | Picked): void {
    const { inherited: _full, history: _refs, ...rest } = bootstrap;
    this.bootstrap = deepFreeze({ ...rest, inheritedCount: inherited.length });
    const closing = deepFreeze(bootstrap.closing);
    this.requestView = undefined;
    this.noSummary = false;
    if (inherited instanceof Picked) {
      this.viewList = [];
      this.lazyInherited = { inherited, closing };
      return;
    }
    // concat allocates exactly its length (a push after a copy would grow the backing store by half).
    const view = inherited.concat(closing);
    for (const entry of view) if (!Object.isFrozen(entry)) deepFreeze(entry);
    this.view = view;
  }

  private applyRewind(toEntryId: string | null, code?: RewoundCode): void {
    const index = toEntryId === null ? -1 : this.view.findIndex(e => e.id === toEntryId);
    if (toEntryId !== null && index < 0) return;
    const before = this.view.length;
    this.rewinds.pushed({ state: { view: this.view, sealed: this.chain?.state() }, code }, this.view.slice(index + 1));
    this.view = this.view.slice(0, index + 1);
    this.requestView = undefined;
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
    this.requestView = undefined;
  }
}
