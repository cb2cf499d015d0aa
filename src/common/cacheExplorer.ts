// The cache explorer's answer per request: its cache figures and the first point where its
// prompt stopped matching the request it should have extended. Computed by the runtime; shared types
// and labels for the panel and the CLI. Pure.
import type { InputTransformation, Usage } from './transcript';
import { cacheReadShare, inputTokens } from './transcript';

export type CacheCause =
  /** Nothing earlier to extend: the chat's first request (or a fork whose parent request is unknown). */
  | 'first'
  /** It repeated the whole previous request and read it. */
  | 'extended'
  | 'model'
  | 'thinking'
  | 'ttl'
  | 'tools'
  | 'system'
  /** The messages stopped matching before the previous request's end (rewind, compaction, edits). */
  | 'messages'
  /** More time than the TTL passed since the previous request: its cache entries had expired. */
  | 'expired'
  /** No breakpoint of this request lies within the provider's 20-block lookback of the cached prefix. */
  | 'lookback'
  /** The prefix was below the model's minimum cacheable length: nothing was written or read. */
  | 'below-minimum'
  /** Everything matched, yet nothing was read (evicted by the provider, or written too late to read). */
  | 'unexplained';

export interface CacheStep {
  /** 0-based, among the session's requests that got a response. */
  index: number;
  time: string;
  usage: Usage;
  cause: CacheCause;
  /** One sentence naming where and why, e.g. "tool 3 of 8 differs". */
  detail: string;
  /** Blocks (tools, system, message blocks) shared with the request it should have extended. */
  matchedBlocks: number;
  totalBlocks: number;
  /** The request it was compared with: the session's previous one, or (a fork's first) the parent's. */
  baseline?: { sessionId: string; index: number };
  /** What the API reported changing before the model read the request (thinking it dropped, and why). */
  inputTransformations?: InputTransformation[];
}

/** One line per transformation, e.g. "thinking_dropped messages.3.content.0 (prefix_binding_mismatch)". */
export function transformationText(change: InputTransformation): string {
  return [change.type, change.path, change.reason ? `(${change.reason})` : undefined].filter(Boolean).join(' ');
}

/** Causes that mean a cache miss the user may want to fix. */
export function isMiss(cause: CacheCause): boolean {
  return cause !== 'first' && cause !== 'extended';
}

export const CAUSE_LABELS: Record<CacheCause, string> = {
  first: 'first request',
  extended: 'extended the previous request',
  model: 'another model',
  thinking: 'thinking setting differs',
  ttl: 'cache lifetime differs',
  tools: 'tools changed',
  system: 'system prompt changed',
  messages: 'conversation changed',
  expired: 'cache expired',
  lookback: 'breakpoint beyond the 20-block lookback',
  'below-minimum': 'prefix below the model minimum',
  unexplained: 'matched, but nothing read',
};

/** What a fork's cache steps are read against: a numeric window means its history starts elsewhere. */
export interface CacheContext { forkTurns?: string }

/**
 * Causes that follow from what the user chose, not from a fault: the cache's lifetime passed, another
 * model (each has its own cache), or a fork that inherits only its last turns (its first request cannot
 * match the parent's conversation, only its tools and system prompt).
 */
export function isExpected(step: Pick<CacheStep, 'cause' | 'index' | 'baseline'>, context: CacheContext = {}): boolean {
  if (step.cause === 'expired' || step.cause === 'model') return true;
  const windowed = context.forkTurns !== undefined && context.forkTurns !== 'all';
  return windowed && step.cause === 'messages' && step.index === 0 && step.baseline !== undefined;
}

export interface CacheNote { index: number; kind: 'info' | 'miss'; text: string }

/** One line per request that read less than it could: expected ones as information, in plain words. */
export function cacheNotes(steps: readonly CacheStep[], context: CacheContext = {}): CacheNote[] {
  return steps.filter(step => isMiss(step.cause)).map(step => {
    const request = `Request ${step.index + 1}`;
    if (!isExpected(step, context)) return { index: step.index, kind: 'miss', text: `${request}: ${CAUSE_LABELS[step.cause]}. ${step.detail}` };
    const text = step.cause === 'messages'
      ? `${request}: this fork inherits only the last ${context.forkTurns} turn(s), so its conversation starts elsewhere than its parent's; ` +
        'it read the shared tools and instructions from the cache and wrote the rest. This is expected.'
      : `${request}: ${step.detail} This is expected.`;
    return { index: step.index, kind: 'info', text };
  });
}

/** Shares of one request's input: read from the cache, written to it, neither. */
export function cacheBar(usage: Usage): { read: number; write: number; uncached: number } {
  const total = inputTokens(usage);
  if (total === 0) return { read: 0, write: 0, uncached: 0 };
  return { read: cacheReadShare(usage), write: usage.cache_creation_input_tokens / total, uncached: usage.input_tokens / total };
}
