// The picker's models are asked for once, often while the runtime is still starting. A list given without
// the endpoint's models (the runtime not reachable yet, or the endpoint's list failed) would stay in the
// picker, showing fork.model by its id, until a setting changes. So such a list is asked for again in the
// background, a few times with growing pauses, and the workbench is told to ask again once the endpoint's
// models arrive. An endpoint that has no list (404) costs a few background requests and changes nothing.
import type { EndpointModels } from './models';

export const LIST_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 60_000];

export interface ListRetryDeps {
  list(): Promise<EndpointModels>;
  /** The endpoint's models arrived: the workbench should ask for the models again. */
  onListed(): void;
  /** Every retry found none (the last problem): the configured list stays. */
  onGaveUp?(problem: string): void;
  delaysMs?: readonly number[];
}

export class ListRetry {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  /** Bumped by every stop: a retry under way from before it is ignored. */
  private generation = 0;
  private disposed = false;

  constructor(private readonly deps: ListRetryDeps) {}

  /** A round of retries is under way. */
  get retrying(): boolean {
    return this.timer !== undefined;
  }

  /** What the workbench was just given: without the endpoint's models, retrying starts (once). */
  given(listed: EndpointModels): void {
    if (listed.models.length > 0) return this.stop();
    if (this.timer || this.disposed) return;
    this.attempt = 0;
    this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    this.stop();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.generation++;
  }

  private schedule(): void {
    const delays = this.deps.delaysMs ?? LIST_RETRY_DELAYS_MS;
    const generation = this.generation;
    this.timer = setTimeout(() => void this.retry(delays, generation), delays[this.attempt]);
  }

  private async retry(delays: readonly number[], generation: number): Promise<void> {
    const listed = await this.deps.list();
    if (this.disposed || generation !== this.generation) return;
    if (listed.models.length > 0) {
      this.timer = undefined;
      this.deps.onListed();
      return;
    }
    this.attempt++;
    if (this.attempt >= delays.length) {
      this.timer = undefined;
      this.deps.onGaveUp?.(listed.problem ?? 'no models');
      return;
    }
    this.schedule();
  }
}
