// Sibling stagger (docs/design.md §4.5): a prompt-cache entry becomes readable only once the response of the
// request that writes it has started (Anthropic prompt-caching docs: "for concurrent requests, a cache
// entry only becomes available after the first response begins"). Forks started together from one point
// would each pay the full write of their shared prefix; the first to send claims that prefix and the
// others wait, at most STAGGER_MAX_MS, until its response starts.
import { createHash } from 'node:crypto';
import type { Session } from '../session/session';
import { sleepUnlessAborted } from '../agent/retry';

export const STAGGER_MAX_MS = 5_000;

export class PrefixWriters {
  private readonly writing = new Map<string, Promise<void>>();

  /**
   * Before a fork's first request: waits for a sibling already writing the same prefix (then returns a
   * no-op), or claims the prefix and returns the function that releases it (call it when the response
   * starts or the request ends).
   */
  async claim(key: string, signal: AbortSignal): Promise<() => void> {
    const pending = this.writing.get(key);
    if (pending) {
      await Promise.race([pending, sleepUnlessAborted(STAGGER_MAX_MS, signal)]);
      return () => undefined;
    }
    let release!: () => void;
    const done = new Promise<void>(resolve => (release = resolve));
    this.writing.set(key, done);
    return () => {
      if (this.writing.get(key) === done) this.writing.delete(key);
      release();
    };
  }
}

/**
 * What a fork's first request shares with its siblings: the model settings and the inherited entries
 * (by id: they are immutable) plus the closing's placeholder results. Undefined once the fork has answered.
 */
export function sharedPrefixKey(session: Session): string | undefined {
  const fork = session.inheritedBreakpointsEnd();
  if (!fork) return undefined;
  const entries = session.entries();
  const hash = createHash('sha256').update(JSON.stringify(session.header.settings)).update(session.header.systemPrompt);
  for (const entry of entries.slice(0, fork.closingAt)) hash.update(entry.id).update('\n');
  const closing = entries[fork.closingAt]?.message.content ?? [];
  hash.update(JSON.stringify(closing.slice(0, -1)));
  return hash.digest('hex');
}

/**
 * One run's side of the stagger, as loop hooks: before each send it claims (or waits on) its shared
 * prefix; the claim ends when the response starts, or at the latest when the run ends (`release`).
 */
export class StaggerGate {
  private releaseClaim?: () => void;

  constructor(private readonly writers: PrefixWriters, private readonly session: Session, private readonly signal: AbortSignal) {}

  readonly beforeSend = async (): Promise<void> => {
    this.release();
    const key = sharedPrefixKey(this.session);
    this.releaseClaim = key === undefined ? undefined : await this.writers.claim(key, this.signal);
  };

  readonly onResponseStart = (): void => this.release();

  release(): void {
    this.releaseClaim?.();
    this.releaseClaim = undefined;
  }
}
