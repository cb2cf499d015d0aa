// At most one running turn per session; each can be cancelled. The runtime stays alive while any runs.

interface RunningTurn { controller: AbortController; done: Promise<unknown> }

export class TurnRegistry {
  private readonly running = new Map<string, RunningTurn>();
  private idleListeners: (() => void)[] = [];

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  get count(): number {
    return this.running.size;
  }

  /** Runs `work` as the session's turn; throws if one is already running. */
  async run<T>(sessionId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.running.has(sessionId)) throw new Error('A turn is already running in this session; wait for it or cancel it.');
    const controller = new AbortController();
    const done = work(controller.signal);
    this.running.set(sessionId, { controller, done });
    try {
      return await done;
    } finally {
      this.running.delete(sessionId);
      if (this.running.size === 0) for (const listener of this.idleListeners.splice(0)) listener();
    }
  }

  cancel(sessionId: string): boolean {
    const turn = this.running.get(sessionId);
    if (!turn) return false;
    turn.controller.abort();
    return true;
  }

  /** Resolves when no turn runs. */
  whenIdle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise(resolve => this.idleListeners.push(resolve));
  }
}
