// Model requests retried on retryable errors (the SDK's rules, model/retryRules.ts, plus network errors):
// the server's retry-after-ms / retry-after when given, else exponential backoff with jitter. Used by turns and by compaction alike.
import type { ErrorInfo } from '../../common/agentEvents';
import type { BodyFacts, ModelClient, ModelResponse, StreamHandlers } from '../model/modelClient';
import { ModelError } from '../model/modelClient';
import type { MessagesRequestBody } from '../model/wire';
import type { Usage } from '../../common/transcript';
import { addUsage } from '../../common/transcript';
import { positiveWholeFromEnv } from '../envKnob';

export interface RetryOptions {
  /** Retries after the first attempt (default 4; at most 2 for an unreachable endpoint). */
  maxRetries?: number;
  onRetry?(attempt: number, delayMs: number, error: ErrorInfo): void;
  /** What the caller knows of the body it just built (its bytes, its TTL). */
  facts?(): BodyFacts | undefined;
}

/**
 * What attempts that produced no response still cost: each one whose stream had started (the provider
 * bills its input from message_start on, and any output it streamed), cancelled ones included.
 */
export interface BilledAttempts { lost?: Usage }

/** The response, or the error that ended the attempts (`cancelled` when the signal aborted a wait). */
export async function streamWithRetries(
  model: ModelClient, body: () => MessagesRequestBody, signal: AbortSignal, handlers: StreamHandlers, options: RetryOptions = {},
): Promise<(ModelResponse | { error: ErrorInfo }) & BilledAttempts> {
  const maxRetries = options.maxRetries ?? 4;
  let lost: Usage | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      const built = body();
      return { ...(await model.stream(built, signal, handlers, options.facts?.())), lost };
    } catch (error) {
      const modelError = error instanceof ModelError ? error : new ModelError({ kind: 'internal', message: String(error) });
      if (modelError.billed) lost = lost ? addUsage(lost, modelError.billed) : modelError.billed;
      // An endpoint that refuses connections rarely recovers within seconds: give up sooner.
      const limit = modelError.info.kind === 'network' ? Math.min(2, maxRetries) : maxRetries;
      if (!modelError.retryable || attempt >= limit || signal.aborted) return { error: modelError.info, lost };
      const delayMs = retryDelayMs(attempt, modelError.retryAfterMs);
      options.onRetry?.(attempt + 1, delayMs, modelError.info);
      if (!(await sleepUnlessAborted(delayMs, signal))) return { error: { kind: 'cancelled', message: 'Cancelled.' }, lost };
    }
  }
}

export const RETRY_BASE_MS = 500;

/**
 * The wait before retry `attempt + 1`: the server's retry-after, else RETRY_BASE_MS doubled per attempt plus
 * up to a quarter second of jitter, at most 20 s. FORK_AGENTS_RETRY_BASE_MS (a positive whole number) replaces
 * the base, so tests of an unreachable endpoint or a failing server do not wait out seconds of backoff.
 */
export function retryDelayMs(attempt: number, retryAfterMs?: number, env: NodeJS.ProcessEnv = process.env): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, 60_000);
  const baseMs = positiveWholeFromEnv(env, 'FORK_AGENTS_RETRY_BASE_MS', RETRY_BASE_MS);
  const jitterMs = Math.min(250, baseMs / 2);
  return Math.min(baseMs * 2 ** attempt + Math.floor(Math.random() * jitterMs), 20_000);
}

/** Resolves true after the delay, false as soon as the signal aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise(resolve => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
