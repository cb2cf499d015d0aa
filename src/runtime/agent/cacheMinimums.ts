// The smallest prefix each model caches: below it a cache_control breakpoint is silently ignored. The
// engine uses it to decide where the one prefix breakpoint goes (see request.ts). The figures are the model
// table's (src/common/models.ts, with its sources): 512 on the 5.x models, 1,024 on Sonnet 5 and unknown ids.
import { modelFacts } from '../../common/models';

/** Tokens below which nothing is cached for `model`. */
export function minCacheableTokens(model: string): number {
  return modelFacts(model).minCacheableTokens;
}

/**
 * Extended thinking + prompt caching (prompt-caching docs, "Caching with thinking blocks"; extended-thinking
 * docs, "Thinking block preservation in Claude Opus 4.5 and later"): "cache remains valid when only tool
 * results are provided as user messages"; "when a non-tool-result user block is included, it designates a
 * new assistant loop and all previous thinking blocks are removed from context" — a text block beside tool
 * results counts. Opus 4.5+ and Sonnet 4.6+ keep earlier thinking by default; earlier Opus/Sonnet models and
 * every Haiku strip it. On those, a fork's directive (text beside its placeholder results) and a reminder
 * committed after tool results cut the cached prefix at the current turn's first thinking block.
 */
export function stripsEarlierThinking(model: string): boolean {
  return /haiku/.test(model) || /^claude-(3-|sonnet-4-5|sonnet-4-0|sonnet-4-2|sonnet-4$|opus-4-1|opus-4-0|opus-4-2|opus-4$)/.test(model);
}
