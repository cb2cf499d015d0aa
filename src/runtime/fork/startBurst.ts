// Forks started together (fifty siblings from one chat, a tournament's attempts) are answered before any
// of them runs (docs/design.md §4.6). vscode-jsonrpc dispatches one queued message per event-loop turn, so
// a run that began as soon as its own fork was durable put its sandbox, workspace and first request's
// body (5–25 ms each) between the dispatches of the siblings' fork/start requests still queued behind it:
// with fork.maxConcurrent 8, the 25th answer waited for eight runs' set-up (docs/benchmarks.md, "Fifty
// siblings"). A run therefore waits until no fork/start is being served and none began for QUIET_MS —
// a client's requests sent together reach the runtime over several reads (its writer sends one message at a
// time), and with one quiet turn the first fork's run began between them and held the rest — or at most
// MAX_WAIT_MS, so a long stream of starts cannot hold runs back.
export const MAX_WAIT_MS = 250;
/** A lone fork's first request waits this long at most for siblings; the answer itself never waits. */
export const QUIET_MS = 5;

export class StartBurst {
  private inProgress = 0;
  /** Bumped by every begin(): a quiet period that saw none begin has ended. */
  private generation = 0;
  private waiters: (() => void)[] = [];
  private quiet: NodeJS.Timeout | undefined;

  constructor(private readonly timing: { quietMs: number; maxWaitMs: number } = { quietMs: QUIET_MS, maxWaitMs: MAX_WAIT_MS }) {}

  /** A fork/start is being served; call the returned function once it answered or failed. */
  begin(): () => void {
    this.inProgress++;
    this.generation++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inProgress--;
      this.check();
    };
  }

  /** Resolves once no start is in progress and none began for the quiet period, or after the longest wait. */
  settled(): Promise<void> {
    return new Promise(resolve => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(finish, this.timing.maxWaitMs);
      // Only a run waits on it; the runtime's socket keeps the process alive.
      timer.unref();
      this.waiters.push(finish);
      this.check();
    });
  }

  private check(): void {
    if (this.quiet || this.inProgress > 0 || this.waiters.length === 0) return;
    const seen = this.generation;
    // A timer fires after the immediates of this turn: the next queued fork/start, dispatched there, counts.
    this.quiet = setTimeout(() => {
      this.quiet = undefined;
      if (this.inProgress > 0) return;
      // A start began (and perhaps already ended) meanwhile: a new quiet period.
      if (this.generation !== seen) return this.check();
      for (const waiter of this.waiters.splice(0)) waiter();
    }, this.timing.quietMs);
    this.quiet.unref();
  }
}
