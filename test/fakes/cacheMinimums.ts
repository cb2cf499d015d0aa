// What the real API documents, mirrored by the fake (kept apart from the engine's own copy, so tests
// check the engine against the documented behaviour, not against itself).
//
// Minimum cacheable prompt length: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
// ("Cache limitations"), read 2026-12-02 in verbatim quotes of the page dated by their copiers (2026-07-28,
// 2026-10-01, 2026-10-08; today's copy in the search index shows only the page's top):
//   512 tokens for Claude Fable 5.1, Mythos 5.1, Opus 5.5, Opus 5, Sonnet 5.5, Fable 5, Mythos 5 and Haiku 5.5;
//   2,048 for Claude Mythos Preview, Opus 4.7 and Haiku 3.5; 4,096 for Opus 4.6, Opus 4.5 and Haiku 4.5;
//   1,024 for Opus 4.8, Sonnet 5, Sonnet 4.6, Sonnet 4.5, Opus 4.1, Opus 4 and Sonnet 4.
// Before 2026-12-02 this file had Opus 4.7 at 4,096 and Sonnet 4.6 at 2,048, from third-party copies. Fable 5.2
// and Mythos 5.2 are in no copy read: 512, like the 5.x family (prefixes below). Haiku 3 (retired) keeps the
// 2,048 of the older page. Shorter prefixes are processed without caching, and no error is returned.
import { isPreservedModel } from './preservedThinking';

const MINIMUMS: readonly [prefix: string, tokens: number][] = [
  ['claude-opus-4-5', 4096],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-7', 2048],
  ['claude-mythos-preview', 2048],
  ['claude-haiku-4-5', 4096],
  ['claude-3-5-haiku', 2048],
  ['claude-3-haiku', 2048],
  ['claude-opus-5', 512],
  ['claude-fable-5', 512],
  ['claude-mythos-5', 512],
  ['claude-sonnet-5-5', 512],
  ['claude-haiku-5-5', 512],
];

export function documentedMinCacheTokens(model: string): number {
  return MINIMUMS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 1024;
}

/**
 * Extended thinking + prompt caching (prompt-caching docs, "Caching with thinking blocks"; extended-thinking
 * docs, "Thinking block preservation in Claude Opus 4.5 and later"):
 * - "Cache remains valid when only tool results are provided as user messages"; "cache gets invalidated
 *   when non-tool-result user content is added, causing all previous thinking blocks to be stripped";
 *   "when a non-tool-result user block is included, it designates a new assistant loop and all previous
 *   thinking blocks are removed from context". A user message holding tool_results AND a text block holds
 *   a non-tool-result block: it strips them too.
 * - Starting with Claude Opus 4.5 (and Sonnet 4.6), thinking blocks from previous assistant turns are
 *   preserved in context by default; earlier models (Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4, Sonnet 3.7)
 *   and every Haiku model remove them.
 */
export function stripsEarlierThinking(model: string): boolean {
  // The 5.5 models keep earlier thinking and bind it (preserved-thinking docs, read 2026-12-01; preservedThinking.ts).
  if (isPreservedModel(model)) return false;
  return /haiku/.test(model) || /^claude-(3-|sonnet-4-5|sonnet-4-0|sonnet-4-2|sonnet-4$|opus-4-1|opus-4-0|opus-4-2|opus-4$)/.test(model);
}
