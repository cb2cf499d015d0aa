// The fork manager's run queue (docs/design.md §4.6): at most `maxConcurrent` forks run at once, the
// rest wait in start order; the runtime's idle exit asks whether any is queued or running.
import { DEFAULT_MAX_CONCURRENT_FORKS } from '../../common/defaults';
import type { ForkRun } from './trackedFork';

export class ForkRunQueue {
  private readonly waiting: ForkRun[] = [];
  private running = 0;
  private idleListeners: (() => void)[] = [];
  /** fork.maxConcurrent; a lower value takes effect as running forks end. */
  maxConcurrent = DEFAULT_MAX_CONCURRENT_FORKS;

  /** `runOne` settles once the run has ended (it reports its own failures); then the next one starts. */
  constructor(private readonly runOne: (run: ForkRun) => Promise<void>) {}

  /** Queues the run; true when it started at once (a slot was free and none waited before it). */
  add(run: ForkRun): boolean {
    this.waiting.push(run);
    this.pump();
    return !this.isWaiting(run);
  }

  /** Takes a fork that has not started yet out of the queue; false if it is not waiting. */
  remove(run: ForkRun): boolean {
    const index = this.waiting.indexOf(run);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  isWaiting(run: ForkRun): boolean {
    return this.waiting.includes(run);
  }

  /** A fork is queued or running. */
  get busy(): boolean {
    return this.running > 0 || this.waiting.length > 0;
  }

  /** Resolves when no fork is queued or running. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise(resolve => this.idleListeners.push(resolve));
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.waiting.length > 0) {
      const run = this.waiting.shift()!;
      this.running++;
      void this.runOne(run).finally(() => {
        this.running--;
        this.pump();
      });
    }
    if (!this.busy) for (const listener of this.idleListeners.splice(0)) listener();
  }
}
