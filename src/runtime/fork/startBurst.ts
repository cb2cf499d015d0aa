// Forks started together (fifty siblings from one chat, a tournament's attempts) are answered before any
// of them runs (docs/design.md §4.6). vscode-jsonrpc dispatches one queued message per event-loop turn, so
// a run that began as soon as its own fork was durable put its sandbox, workspace and first request's
// body (5–25 ms each) between the dispatches of the siblings' fork/start requests still queued behind it:
// with fork.maxConcurrent 8, the 25th answer waited for eight runs' set-up (docs/benchmarks.md, "Fifty
// siblings"). A run therefore waits until no fork/start is being created and none was dispatched in the
// turn after the last one finished — the next queued request, if any, is dispatched in that turn — or at
// most MAX_WAIT_MS, so a long stream of starts cannot hold runs back.
import { setImmediate as nextTurn } from 'node:timers/promises';

export const MAX_WAIT_MS = 250;

export class StartBurst {
  private inProgress = 0;
  /** Bumped by every begin(): a turn that saw none begin is quiet. */
  private generation = 0;
  private waiters: (() => void)[] = [];
  private checking = false;

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

  /** Resolves once no start is in progress for a whole turn, or after MAX_WAIT_MS. */
  settled(): Promise<void> {
    return new Promise(resolve => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(finish, MAX_WAIT_MS);
      this.waiters.push(finish);
      this.check();
    });
  }

  private check(): void {
    if (this.checking || this.inProgress > 0 || this.waiters.length === 0) return;
    this.checking = true;
    const seen = this.generation;
    void nextTurn().then(() => {
      this.checking = false;
      if (this.inProgress > 0) return;
      // A start began and already ended within that turn: look one more turn.
      if (this.generation !== seen) return this.check();
      for (const waiter of this.waiters.splice(0)) waiter();
    });
  }
}
