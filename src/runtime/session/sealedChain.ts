// The sealed part of a parent session's history: view[0..sealed) are positions of the session's chain of
// segments (segments.ts), which only grows and is never rewritten, so a fork can name what it inherits as
// ranges of it. Kept apart from Session because it is bookkeeping over positions, not history itself.
import type { Entry } from '../../common/transcript';
import type { Span } from './picked';
import type { HistoryPart, HistoryRefs } from './records';
import type { SegmentStore } from './segments';

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
  /** How many entries at the start of the view are sealed. */
  private sealedCount = 0;
  private headHash: string | null = null;
  /** The chain's entries by position (a rewind never cuts the chain: it stays immutable). */
  private readonly chainEntries: Entry[] = [];
  /** Chain position by entry, built only when a selection is not spans of the view (kept off the load path). */
  private chainPos?: WeakMap<Entry, number>;
  /** view[0..sealed) by chain position, in runs (one, plus one per rewind into sealed history). */
  private runs: ChainRun[] = [];
  /** Serialized size of the unsealed tail. */
  private tailBytes = 0;

  get sealed(): number {
    return this.sealedCount;
  }

  /** The hash of the latest segment (null: nothing sealed yet). */
  get head(): string | null {
    return this.headHash;
  }

  /** How many entries the chain holds: the base of the next segment. */
  get length(): number {
    return this.chainEntries.length;
  }

  /** After a commit of `entry`: whether the tail has reached a bound (`view`: the view's length). */
  grew(entry: Entry, view: number): boolean {
    this.tailBytes += JSON.stringify(entry).length;
    return view - this.sealedCount >= SEAL_ENTRIES || this.tailBytes >= SEAL_BYTES;
  }

  /** A tail longer than a segment: a session written before segments existed, sealed when first forked. */
  overdue(view: number): boolean {
    return view - this.sealedCount > SEAL_ENTRIES || this.tailBytes >= SEAL_BYTES;
  }

  /**
   * Seals view[sealed..), at most SEAL_ENTRIES a segment; `recorded` writes each seal record after its
   * segment is on disk. Throws what the store throws; what was sealed before stays sealed.
   */
  sealTail(view: readonly Entry[], segments: SegmentStore, owner: string, recorded: (hash: string, count: number) => void): void {
    while (this.sealedCount < view.length) {
      const entries = view.slice(this.sealedCount, Math.min(view.length, this.sealedCount + SEAL_ENTRIES));
      const hash = segments.seal({ v: 1, prev: this.headHash, base: this.chainEntries.length, count: entries.length, owner }, entries);
      recorded(hash, entries.length);
      this.append(hash, entries);
    }
    this.tailBytes = 0;
  }

  /** `entries` (the view's next ones after the sealed part) are the segment `hash`. */
  append(hash: string, entries: readonly Entry[]): void {
    const base = this.chainEntries.length;
    const run = this.runs[this.runs.length - 1];
    if (run && run.view + run.count === this.sealedCount && run.chain + run.count === base) run.count += entries.length;
    else this.runs.push({ view: this.sealedCount, chain: base, count: entries.length });
    for (let i = 0; i < entries.length; i++) {
      this.chainPos?.set(entries[i], base + i);
      this.chainEntries.push(entries[i]);
    }
    this.headHash = hash;
    this.sealedCount += entries.length;
  }

  /** How a fork names view's `spans`: they map through the runs, with no per-entry work. */
  refsOfSpans(view: readonly Entry[], spans: readonly Span[]): HistoryRefs {
    const parts: HistoryPart[] = [];
    for (const span of spans) this.spanRefs(view, span, parts);
    return { head: this.headHash, parts };
  }

  /** How a fork names `selected` (entries in order): ranges of the chain, and the unsealed entries in full. */
  refsOf(selected: readonly Entry[]): HistoryRefs {
    const parts: HistoryPart[] = [];
    const chainPos = this.positions();
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
    return { head: this.headHash, parts };
  }

  private positions(): WeakMap<Entry, number> {
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

  /** The unsealed tail's size, measured again (bounded: everything before the last seal is sealed). */
  measureTail(view: readonly Entry[]): void {
    this.tailBytes = 0;
    for (let i = this.sealedCount; i < view.length; i++) this.tailBytes += JSON.stringify(view[i]).length;
  }

  save(): SealedState {
    return { sealed: this.sealedCount, runs: this.runs.map(run => ({ ...run })) };
  }

  restore(state: SealedState): void {
    this.sealedCount = state.sealed;
    this.runs = state.runs;
  }

  /** The view was cut to `length` entries: what follows was sealed and stays in the chain; new seals continue it. */
  cut(length: number): void {
    this.sealedCount = Math.min(this.sealedCount, length);
    this.runs = this.runs.filter(run => run.view < this.sealedCount);
    const last = this.runs[this.runs.length - 1];
    if (last && last.view + last.count > this.sealedCount) last.count = this.sealedCount - last.view;
  }
}
