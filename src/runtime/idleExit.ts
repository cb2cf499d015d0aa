// The runtime stops after a quiet period with no client connected and nothing running.
// One timer at most: every change of the connected clients re-decides, and the timer re-checks when it
// fires, so no timer left from an earlier disconnect can stop a runtime that has a client or running work.

export interface IdleExitDeps {
  delayMs: number;
  /** Authenticated clients connected now. */
  clients(): number;
  /** A turn or a fork is running or queued. */
  busy(): boolean;
  /** Resolves when no turn or fork runs. */
  whenIdle(): Promise<void>;
  stop(): void;
  setTimer?(callback: () => void, ms: number): unknown;
  clearTimer?(handle: unknown): void;
}

export class IdleExit {
  private timer: unknown;
  private generation = 0;

  constructor(private readonly deps: IdleExitDeps) {}

  /** Call whenever a client connects or disconnects (and once at start). */
  update(): void {
    const generation = ++this.generation;
    this.cancelTimer();
    if (this.deps.clients() > 0) return;
    void this.deps.whenIdle().then(() => {
      if (generation !== this.generation || this.deps.clients() > 0) return;
      this.cancelTimer();
      const set = this.deps.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
      this.timer = set(() => this.fire(generation), this.deps.delayMs);
    });
  }

  private fire(generation: number): void {
    this.timer = undefined;
    if (generation !== this.generation || this.deps.clients() > 0) return;
    // Work started since (a fork the agent spawned): wait for it, then start the quiet period again.
    if (this.deps.busy()) return this.update();
    this.deps.stop();
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    (this.deps.clearTimer ?? (handle => clearTimeout(handle as NodeJS.Timeout)))(this.timer);
    this.timer = undefined;
  }
}
