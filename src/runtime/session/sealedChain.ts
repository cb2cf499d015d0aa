// A chat's sealed history (segments.ts): view[0..sealed) of its active history is in the chain ending at
// `head`; the chain's entries are kept by position (a rewind never cuts the chain: it stays immutable).
// It seals the unsealed tail as the chat commits, names a fork's selection by chain ranges plus the few
// unsealed entries, and replays seal records on load.
import type { Entry } from '../../common/transcript';
import type { LineDamage } from './damage';
import { mendFromSegment, unrepaired } from './damage';
import { Picked } from './picked';
import type { Span } from './picked';
import type { ApprovalMode } from '../../common/approval';
import type { HistoryPart, HistoryRefs, SealPrefix, SessionRecord } from './records';
import type { RangeSegmentHeader, SegmentStore } from './segments';
import { rangeSegmentName } from './segments';
import { TranscriptTail } from './transcriptTail';

/**
 * The unsealed tail stays below both bounds after every commit: a fork's bootstrap writes at most that
 * much history in full, whatever the parent's size.
 */
export const SEAL_ENTRIES = 64;
export const SEAL_BYTES = 32 * 1024;

/** Positions view[view, view + count) of a session are positions chain[chain, chain + count) of its sealed chain. */
interface ChainRun { view: number; chain: number; count: number }

/** What a rewind changes here, kept so it can be undone. */
export interface SealedState { sealed: number; runs: ChainRun[] }

export class SealedChain {
  /** How many entries of the active history (from its start) are sealed. */
  sealed = 0;
  private head: string | null = null;
  private readonly chainEntries: Entry[] = [];
  /** Chain position by entry, built only when a selection is not spans of the view (kept off the load path). */
  private chainPos?: WeakMap<Entry, number>;
  /** view[0..sealed) by chain position, in runs (one, plus one per rewind into sealed history). */
  private runs: ChainRun[] = [];
  private tailBytes = 0;
  /** Where the unsealed entries are in the session's file: what a v2 seal names. */
  readonly tail = new TranscriptTail();
  /** A damaged line put the replayed seals out of step with the view: later seal records are not trusted. */
  private untrusted = false;
  /** A compaction summary was sealed: the view's request view is no longer the chain itself. */
  private summarized = false;
  /** The chat's approval mode as its records give it (carried in seal records: SealPrefix). */
  approvalMode?: ApprovalMode;

  constructor(private readonly segments: SegmentStore, private readonly owner: string) {}

  /** A record was appended (its `bytes`) or replayed, its line ending at `end`. */
  recorded(end: number, entry: boolean, bytes?: Buffer): void {
    this.tail.recorded(end, entry, bytes);
  }

  /** When nothing is unsealed, the next run of the file to seal starts where the file ends. */
  settle(viewLength: number): void {
    if (this.sealed === viewLength) this.tail.emptied();
  }

  /** After committing `entry`: whether the tail reached its bounds (then the caller seals). */
  grew(entry: Entry, viewLength: number): boolean {
    this.tailBytes += JSON.stringify(entry).length;
    return viewLength - this.sealed >= SEAL_ENTRIES || this.tailBytes >= SEAL_BYTES;
  }

  /** A tail longer than the bounds (a session written before segments existed): the first fork seals it. */
  overBounds(viewLength: number): boolean {
    return viewLength - this.sealed > SEAL_ENTRIES || this.tailBytes >= SEAL_BYTES;
  }

  /**
   * Sealing is an optimisation over entries already committed to the transcript: when it cannot be done
   * (a full disk) the entries stay unsealed — forks then carry them in full — and the next commit tries again.
   */
  trySeal(view: readonly Entry[], write: (record: SessionRecord) => void): void {
    try {
      this.seal(view, write);
    } catch {
      // What was sealed before the failure stays sealed (its seal record is written); the rest waits.
    }
  }

  /**
   * Seals the unsealed tail, at most SEAL_ENTRIES a segment. A plain run of the file is sealed as its own
   * byte range (nothing copied: history stays on disk once); otherwise the entries are copied into a v1
   * segment file, which is on disk before its seal record.
   */
  private seal(view: readonly Entry[], write: (record: SessionRecord) => void): void {
    // The offsets are this session's own count of what it appended: a file of another length (a record
    // written around it) would make a range name the wrong bytes, so then the tail is sealed as a copy.
    if (this.tail.plain && !this.segments.transcriptEndsAt(this.owner, this.tail.fileEnd)) this.tail.plain = false;
    while (this.sealed < view.length) {
      const entries = view.slice(this.sealed, Math.min(view.length, this.sealed + SEAL_ENTRIES));
      const chained = { prev: this.head, base: this.chainEntries.length, count: entries.length, owner: this.owner };
      if (this.tail.canSeal(entries.length, view.length - this.sealed)) {
        const to = this.tail.ends[entries.length - 1];
        const { hash, header } = this.segments.sealRange({ ...chained, from: this.tail.start, to }, entries, this.tail.digestThrough(to));
        const prefix = this.prefixAfter(entries);
        write({ type: 'seal', hash, count: entries.length, segment: header, ...(prefix ? { prefix } : {}) });
        this.tail.sealed(entries.length);
        this.applySeal(hash, entries);
        continue;
      }
      const hash = this.segments.seal({ v: 1, ...chained }, entries);
      write({ type: 'seal', hash, count: entries.length });
      this.applySeal(hash, entries);
    }
    this.tailBytes = 0;
    this.settle(view.length);
  }

  /**
   * A seal record read back on load. Returns the view mended from a v1 segment when lines since the last
   * seal were lost and the segment holds them (marking `damage` recovered), else `view`.
   */
  replaySeal(hash: string, count: number, segment: RangeSegmentHeader | undefined, view: Entry[], damage: readonly LineDamage[]): Entry[] {
    if (this.untrusted) return view;
    const pending = unrepaired(damage).filter(d => !d.recoveredFrom);
    if (segment) {
      // A v2 segment is these very lines: it cannot mend a lost one. It is trusted when it is whole and the
      // lines lost since the last seal held no entry of it (its count says how many the range holds).
      const consistent = rangeSegmentName(segment) === hash && segment.count === count && segment.base === this.chainEntries.length && segment.prev === this.head;
      if (!consistent || (pending.length > 0 && view.length - this.sealed !== count)) {
        this.untrusted = true;
        return view;
      }
    } else if (pending.length > 0) {
      // Since the last seal a line was lost: the v1 segment holds the span whole, so it mends the view.
      const copy = this.segments.readVerifiedSync(hash);
      const mended = copy && copy.header.base === this.chainEntries.length && mendFromSegment(view.slice(this.sealed), copy.entries);
      if (!mended) {
        this.untrusted = true;
        return view;
      }
      view = view.slice(0, this.sealed).concat(mended);
      for (const d of pending) d.recoveredFrom = hash;
    }
    const entries = view.slice(this.sealed, this.sealed + count);
    if (entries.length !== count) return view;
    this.segments.remember(hash, segment ?? { v: 1, prev: this.head, base: this.chainEntries.length, count, owner: this.owner }, entries);
    this.applySeal(hash, entries);
    return view;
  }

  /**
   * What the seal of `entries` (next in both the view and the chain) can say of the chat (records.ts,
   * SealPrefix): only when view[0, sealed) is chain[0, sealed) — the chain's runs map the view in order,
   * so equal lengths mean the identity — nothing was mended, and no summary is sealed.
   */
  private prefixAfter(entries: readonly Entry[]): SealPrefix | undefined {
    if (this.untrusted || this.summarized || this.sealed !== this.chainEntries.length) return undefined;
    if (entries.some(entry => entry.kind === 'summary')) return undefined;
    return this.approvalMode ? { approvalMode: this.approvalMode } : {};
  }

  private applySeal(hash: string, entries: readonly Entry[]): void {
    if (!this.summarized && entries.some(entry => entry.kind === 'summary')) this.summarized = true;
    const base = this.chainEntries.length;
    const run = this.runs[this.runs.length - 1];
    if (run && run.view + run.count === this.sealed && run.chain + run.count === base) run.count += entries.length;
    else this.runs.push({ view: this.sealed, chain: base, count: entries.length });
    for (let i = 0; i < entries.length; i++) {
      this.chainPos?.set(entries[i], base + i);
      this.chainEntries.push(entries[i]);
    }
    this.head = hash;
    this.sealed += entries.length;
  }

  /**
   * How a fork names `selection` (entries of `view`, in order): ranges of the chain and the few unsealed
   * entries in full. Spans of `view` itself map through the chain runs: no per-entry work.
   */
  refs(view: readonly Entry[], selection: readonly Entry[] | Picked): HistoryRefs {
    const parts: HistoryPart[] = [];
    if (selection instanceof Picked && selection.source === view) {
      for (const span of selection.spans) this.spanRefs(view, span, parts);
      return { head: this.head, parts };
    }
    const selected = selection instanceof Picked ? selection.toArray() : selection;
    const chainPos = this.chainPositions();
    for (let i = 0; i < selected.length;) {
      const at = chainPos.get(selected[i]);
      if (at === undefined) {
        const last = parts[parts.length - 1];
        if (last && 'entries' in last) last.entries.push(selected[i]);
        else parts.push({ entries: [selected[i]] });
        i++;
        continue;
      }
      // Runs of consecutive chain positions are the common case (all of it, or a window's suffix).
      let end = i + 1;
      while (end < selected.length && this.chainEntries[at + end - i] === selected[end]) end++;
      parts.push({ from: at, to: at + end - i });
      i = end;
    }
    return { head: this.head, parts };
  }

  private chainPositions(): WeakMap<Entry, number> {
    if (!this.chainPos) {
      this.chainPos = new WeakMap();
      for (let i = 0; i < this.chainEntries.length; i++) this.chainPos.set(this.chainEntries[i], i);
    }
    return this.chainPos;
  }

  /** The parts naming view[from, to): ranges of the chain for what is sealed, the rest in full. */
  private spanRefs(view: readonly Entry[], span: Span, parts: HistoryPart[]): void {
    let i = span.from;
    for (const run of this.runs) {
      if (i >= span.to) break;
      const runEnd = run.view + run.count;
      if (runEnd <= i) continue;
      const to = Math.min(span.to, runEnd);
      const range = { from: run.chain + i - run.view, to: run.chain + to - run.view };
      const last = parts[parts.length - 1];
      if (last && !('entries' in last) && last.to === range.from) last.to = range.to;
      else parts.push(range);
      i = to;
    }
    for (; i < span.to; i++) {
      const last = parts[parts.length - 1];
      if (last && 'entries' in last) last.entries.push(view[i]);
      else parts.push({ entries: [view[i]] });
    }
  }

  /** An entry of the unsealed tail (or just before it), by id: forks revived while the session is open share it. */
  recentEntry(view: readonly Entry[], id: string): Entry | undefined {
    for (let i = view.length - 1; i >= Math.max(0, this.sealed - SEAL_ENTRIES); i--) if (view[i].id === id) return view[i];
    return undefined;
  }

  /** The unsealed tail's size (bounded after a load: everything before the last seal record is sealed). */
  measure(view: readonly Entry[]): void {
    this.tailBytes = 0;
    for (let i = this.sealed; i < view.length; i++) this.tailBytes += JSON.stringify(view[i]).length;
  }

  state(): SealedState {
    return { sealed: this.sealed, runs: this.runs.map(run => ({ ...run })) };
  }

  /** A rewind left `view`: what follows the cut stays in the chain; new seals continue it. */
  cut(view: readonly Entry[], before: number): void {
    // Unsealed entries cut away: the file's lines from the tail's start no longer match the history.
    if (this.sealed < before) this.tail.plain = false;
    this.cutTo(view, view.length);
  }

  /**
   * A repair record (fork-agents doctor --repair) made `view` its first `keep` entries plus mended ones:
   * seals after it are trusted again; what it wrote is not a run of entry lines, so the tail seals as a copy.
   */
  repaired(view: readonly Entry[], keep: number): void {
    this.cutTo(view, keep);
    this.untrusted = false;
    if (this.sealed < view.length) this.tail.plain = false;
  }

  private cutTo(view: readonly Entry[], length: number): void {
    this.sealed = Math.min(this.sealed, length);
    this.runs = this.runs.filter(run => run.view < this.sealed);
    const last = this.runs[this.runs.length - 1];
    if (last && last.view + last.count > this.sealed) last.count = this.sealed - last.view;
    this.measure(view);
  }

  /** An undone rewind brings back `state` over `view`. */
  restore(state: SealedState, view: readonly Entry[]): void {
    if (state.sealed < view.length) this.tail.plain = false;
    this.sealed = state.sealed;
    this.runs = state.runs;
    this.measure(view);
  }
}
