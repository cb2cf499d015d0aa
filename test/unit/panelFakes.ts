// Test doubles for the panel's pure parts: a clock the test advances (no sleeping).
import type { Clock } from '../../src/host/panel/coalescer';

interface Timer { id: number; at: number; run(): void }

export class FakeClock implements Clock {
  private time = 0;
  private nextId = 1;
  private timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), run: callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter(t => t.id !== handle);
  }

  /** Moves time forward, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter(t => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter(t => t !== due);
      this.time = due.at;
      due.run();
    }
    this.time = end;
  }

  pending(): number {
    return this.timers.length;
  }
}
