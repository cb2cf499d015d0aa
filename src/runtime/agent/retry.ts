// Model requests retried on retryable errors (the SDK's rules, model/retryRules.ts, plus network errors):
// the server's retry-after-ms / retry-after when given, else exponential backoff with jitter. Used by turns and by compaction alike.
import type { ErrorInfo } from '../../common/agentEvents';
import type { BodyFacts, ModelClient, ModelResponse, StreamHandlers } from '../model/modelClient';
import { ModelError } from '../model/modelClient';
import type { MessagesRequestBody } from '../model/wire';
import type { Usage } from '../../common/transcript';
import { addUsage } from '../../common/transcript';

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

export function retryDelayMs(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, 60_000);
  const base = 500 * 2 ** attempt;
  return Math.min(base + Math.floor(Math.random() * 250), 20_000);
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
