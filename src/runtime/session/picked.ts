// A selection of history named by index spans of its source list, never copied: selecting,
// closing and referencing the inherited history of a 60,000-entry parent then costs what the bounded parts
// cost (the window's scan, the unsealed tail), not what the list holds. The list is built once, when a fork
// first needs it (its first request, which reads every entry anyway).
import type { Entry } from '../../common/transcript';

/** Entries [from, to) of a source list. */
export interface Span { from: number; to: number }

/** What the selection and closing rules read: a list by position (an array, or a Picked). */
export interface EntryList {
  readonly length: number;
  at(index: number): Entry | undefined;
}

/**
 * The entries of `spans` of `source`, in order. The source's positions below the spans' ends must not
 * change while this is alive: a session's history array only grows (a rewind replaces it, see Session).
 */
export class Picked implements EntryList {
  readonly length: number;

  constructor(readonly source: readonly Entry[], readonly spans: readonly Span[]) {
    let length = 0;
    for (const span of spans) length += span.to - span.from;
    this.length = length;
  }

  /** The first `count` entries of `source`. */
  static prefix(source: readonly Entry[], count: number = source.length): Picked {
    return new Picked(source, count > 0 ? [{ from: 0, to: count }] : []);
  }

  /** The entry at `index` (negative: from the end). Spans are walked from the end: callers read the tail. */
  at(index: number): Entry | undefined {
    const i = index < 0 ? index + this.length : index;
    if (i < 0 || i >= this.length) return undefined;
    let end = this.length;
    for (let s = this.spans.length - 1; s >= 0; s--) {
      const span = this.spans[s];
      const start = end - (span.to - span.from);
      if (i >= start) return this.source[span.from + i - start];
      end = start;
    }
    return undefined;
  }

  /** The first `count` entries of this selection. */
  take(count: number): Picked {
    if (count >= this.length) return this;
    const spans: Span[] = [];
    let left = count;
    for (const span of this.spans) {
      if (left <= 0) break;
      const n = Math.min(left, span.to - span.from);
      spans.push({ from: span.from, to: span.from + n });
      left -= n;
    }
    return new Picked(this.source, spans);
  }

  /** The entries as one exactly sized array, followed by `extra`. */
  toArray(...extra: Entry[]): Entry[] {
    const out = new Array<Entry>(this.length + extra.length);
    let k = 0;
    for (const span of this.spans) for (let i = span.from; i < span.to; i++) out[k++] = this.source[i];
    for (const entry of extra) out[k++] = entry;
    return out;
  }
}
