// When and how long to wait before retrying a failed model request, by the rules the Anthropic SDK
// documents and applies itself: `x-should-retry` decides when present; otherwise 408, 409, 429 and 5xx
// retry. The wait is `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP-date);
// a missing, unreadable, non-positive or too large value means the caller's own backoff.

export interface HeaderSource { get(name: string): string | null | undefined }

export interface RetryAdvice {
  retryable: boolean;
  /** The server's requested wait, when it gave a usable one. */
  delayMs?: number;
}

/** setTimeout fires at once for anything above this. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function retryAdvice(status: number, headers: HeaderSource | undefined, now: number = Date.now()): RetryAdvice {
  return { retryable: shouldRetry(status, headers), delayMs: serverDelayMs(headers, now) };
}

export function shouldRetry(status: number, headers: HeaderSource | undefined): boolean {
  const explicit = headers?.get('x-should-retry');
  if (explicit === 'true') return true;
  if (explicit === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function serverDelayMs(headers: HeaderSource | undefined, now: number = Date.now()): number | undefined {
  let delay: number | undefined;
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const parsed = parseFloat(ms);
    if (!Number.isNaN(parsed)) delay = parsed;
  }
  const after = headers?.get('retry-after');
  if (after && !delay) {
    const seconds = parseFloat(after);
    delay = Number.isNaN(seconds) ? Date.parse(after) - now : seconds * 1000;
  }
  return delay !== undefined && delay > 0 && delay <= MAX_TIMER_MS ? delay : undefined;
}
