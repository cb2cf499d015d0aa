// Batches a stream of items per key into at most one flush per interval (no more than ~20
// renders a second per fork). The first item of a quiet key flushes on the next tick; items arriving
// within the interval after a flush wait for the next slot, so a busy fork costs ≤ 1000/interval posts/s.
// Pure: the clock is injected, so tests drive time instead of sleeping.

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  // Monotonic and sub-millisecond: Date.now() rounding alone can bring two flushes 49 ms apart.
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: handle => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** 50 ms: 20 flushes a second per key at most. */
export const DEFAULT_INTERVAL_MS = 50;

interface Pending<T> { items: T[]; timer: unknown }

export class Coalescer<T> {
  private readonly pending = new Map<string, Pending<T>>();
  private readonly lastFlush = new Map<string, number>();

  constructor(
    private readonly flush: (key: string, items: T[]) => void,
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
    private readonly clock: Clock = realClock,
  ) {}

  add(key: string, ...items: T[]): void {
    if (items.length === 0) return;
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.items.push(...items);
      return;
    }
    const last = this.lastFlush.get(key);
    const due = last === undefined ? 0 : Math.max(0, last + this.intervalMs - this.clock.now());
    const entry: Pending<T> = { items, timer: undefined };
    this.pending.set(key, entry);
    entry.timer = this.clock.setTimeout(() => this.flushKey(key), due);
  }

  /** Drops a key's pending items and its history (the fork is gone, or a snapshot supersedes them). */
  discard(key?: string): void {
    for (const [k, waiting] of this.pending) {
      if (key !== undefined && k !== key) continue;
      this.clock.clearTimeout(waiting.timer);
      this.pending.delete(k);
    }
  }

  dispose(): void {
    this.discard();
    this.lastFlush.clear();
  }

  private flushKey(key: string): void {
    const waiting = this.pending.get(key);
    if (!waiting) return;
    // Timers may fire a little early (the event loop's cached time): never flush before the slot.
    const last = this.lastFlush.get(key);
    const early = last === undefined ? 0 : last + this.intervalMs - this.clock.now();
    if (early > 0) {
      waiting.timer = this.clock.setTimeout(() => this.flushKey(key), Math.max(1, Math.ceil(early)));
      return;
    }
    this.pending.delete(key);
    this.lastFlush.set(key, this.clock.now());
    this.flush(key, waiting.items);
  }
}
