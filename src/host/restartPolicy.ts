// When the runtime connection closes, reconnect (which restarts a dead runtime) — unless it keeps dying:
// then stop trying until the next request asks again, instead of spinning.

export class RestartPolicy {
  private readonly closes: number[] = [];

  constructor(private readonly maxRestarts = 5, private readonly windowMs = 60_000) {}

  /** Records a close at `now`; true when the client should restart. */
  shouldRestart(now: number = Date.now()): boolean {
    this.closes.push(now);
    while (this.closes.length > 0 && now - this.closes[0] > this.windowMs) this.closes.shift();
    return this.closes.length <= this.maxRestarts;
  }

  reset(): void {
    this.closes.length = 0;
  }
}
