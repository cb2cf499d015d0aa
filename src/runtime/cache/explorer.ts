// The cache explorer: for each request a session sent, where its prompt stopped matching the
// request it should have extended — its own previous request, or for a fork's first request the parent's
// latest — and what that means for the provider's cache (docs/design.md §4.5). Works on request records only.
import type { CacheStep } from '../../common/cacheExplorer';
import type { RequestExplanation, RequestRecord } from '../session/records';
import { sharedBlocks } from './storedRequest';

/** The provider reads a cached prefix ending at most this many blocks back from a breakpoint (itself included). */
export const LOOKBACK_BLOCKS = 20;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
const TTL_WORDS = { '5m': '5 minutes', '1h': 'one hour' } as const;

export interface Baseline { record: RequestRecord; sessionId: string; index: number }

/**
 * Steps for `requests[from..]`, appended to `steps` (which holds the steps before `from`): a running fork adds
 * one step per request instead of explaining its whole history again. `firstBaseline` is asked only for a
 * first request recorded without its verdict (files written before verdicts were stored).
 */
export function explainRequests(sessionId: string, requests: readonly RequestRecord[], firstBaseline?: () => Baseline | undefined, steps: CacheStep[] = []): CacheStep[] {
  for (let index = steps.length; index < requests.length; index++) {
    const record = requests[index];
    const verdict = index > 0 ? explain(record, { record: requests[index - 1], sessionId, index: index - 1 }) : record.explained ?? explain(record, firstBaseline?.());
    steps.push({ index, time: record.time, usage: record.usage, ...verdict, ...(record.inputTransformations ? { inputTransformations: record.inputTransformations } : {}) });
  }
  return steps;
}

type Explained = RequestExplanation;

export function explain(current: RequestRecord, base: Baseline | undefined): Explained {
  const totalBlocks = current.blocks.length;
  const nothingCached = current.usage.cache_read_input_tokens === 0 && current.usage.cache_creation_input_tokens === 0;
  if (!base) {
    if (nothingCached && current.breakpoints.length > 0) {
      return { cause: 'below-minimum', detail: 'Nothing was written to the cache: the prompt is below the model\'s minimum cacheable length.', matchedBlocks: 0, totalBlocks };
    }
    return { cause: 'first', detail: 'The first request: nothing earlier to extend.', matchedBlocks: 0, totalBlocks };
  }
  const previous = base.record;
  const baseline = { sessionId: base.sessionId, index: base.index };
  const matched = sharedBlocks(previous.blocks, current.blocks);
  const result = (cause: Explained['cause'], detail: string): Explained => ({ cause, detail, matchedBlocks: matched, totalBlocks, baseline });
  if (current.model !== previous.model) return result('model', `It ran ${current.model} after ${previous.model}; each model has its own cache, so this request started a new one.`);
  if (current.thinking !== previous.thinking) return result('thinking', `The thinking setting differs (${previous.thinking} → ${current.thinking}).`);
  if (current.ttl !== previous.ttl) return result('ttl', `The cache lifetime differs (${previous.ttl} → ${current.ttl}): a different cache entry.`);
  const tools = Math.max(previous.toolBlocks, current.toolBlocks);
  if (matched < tools) {
    const what = previous.toolBlocks !== current.toolBlocks ? `${previous.toolBlocks} → ${current.toolBlocks} tools` : `tool ${matched + 1} of ${tools} differs`;
    return result('tools', `The tool list changed (${what}): everything after it is uncached.`);
  }
  if (matched < tools + Math.max(previous.systemBlocks, current.systemBlocks)) {
    return result('system', 'The system prompt changed: every message after it is uncached.');
  }
  const gapMs = Date.parse(current.time) - Date.parse(previous.time);
  if (gapMs > TTL_MS[previous.ttl]) {
    return result('expired', `${minutes(gapMs)} passed since the previous request, longer than the cache lasts (${TTL_WORDS[previous.ttl]}), so it had expired; the requests after this one read it again.`);
  }
  // Entries the previous request wrote (at its breakpoints) that this prompt still matches.
  const readable = previous.breakpoints.filter(at => at < matched);
  const messageBlock = (at: number) => at - previous.toolBlocks - previous.systemBlocks + 1;
  if (readable.length === 0) return result('messages', `The conversation differs from the previous request from its part ${messageBlock(matched)} on (rewound, compacted or edited).`);
  const end = Math.max(...readable);
  const reaches = current.breakpoints.some(at => at >= end && at - end < LOOKBACK_BLOCKS);
  if (!reaches) {
    const next = current.breakpoints.filter(at => at >= end).sort((a, b) => a - b)[0];
    const gap = next === undefined ? 'no cache breakpoint follows it' : `the nearest cache breakpoint is ${next - end} parts later`;
    return result('lookback', `The cached part ends at part ${messageBlock(end)} of the conversation, but ${gap}; the provider looks back only ${LOOKBACK_BLOCKS} parts.`);
  }
  const previousWroteNothing = previous.usage.cache_creation_input_tokens === 0 && previous.usage.cache_read_input_tokens === 0;
  if (nothingCached || (previousWroteNothing && current.usage.cache_read_input_tokens === 0)) {
    return result('below-minimum', 'Nothing was cached: the prefix is below the model\'s minimum cacheable length.');
  }
  if (matched < previous.blocks.length) {
    return result('messages', `The conversation differs from the previous request from its part ${messageBlock(matched)} on; what came before was read.`);
  }
  if (current.usage.cache_read_input_tokens === 0) {
    return result('unexplained', 'The prompt extends the previous request, yet nothing was read (evicted, or the previous response had not started yet).');
  }
  return result('extended', 'Extends the previous request.');
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 60 ? `${(m / 60).toFixed(1)} h` : `${m.toFixed(1)} min`;
}
