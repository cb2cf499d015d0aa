// What the real API documents, mirrored by the fake (kept apart from the engine's own copy, so tests
// check the engine against the documented behaviour, not against itself).
//
// Minimum cacheable prompt length (Anthropic prompt-caching docs, "Cache limitations", as quoted by
// OpenRouter's Anthropic caching guide and the rig crate's docs): 4,096 tokens for Claude Opus 4.7 / 4.6 /
// 4.5 and Haiku 4.5; 2,048 for Sonnet 4.6 and Haiku 3.5 / 3; 1,024 for Sonnet 4.5, Opus 4.1, Opus 4,
// Sonnet 4, Sonnet 3.7 and Opus 4.8; 512 for Opus 5 and Fable 5 (release notes: "down from 1,024 tokens on
// Claude Opus 4.8"). Read 2026-12-01: 512 for Claude Sonnet 5.5
// (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5) and Claude Haiku 5.5
// (https://platform.claude.com/docs/en/models/haiku-5-5/overview); 1,024 stays for Sonnet 5 (the same
// whats-new page); 512 for Mythos 5 (https://docs.litellm.ai/docs/completion/prompt_caching.md, updated
// 2026-10-07). Opus 5.5 and Fable 5.1 / 5.2 are not stated on the pages read: 512, like the 5.x family.
// Shorter prefixes are processed without caching, and no error is returned.
const MINIMUMS: readonly [prefix: string, tokens: number][] = [
  ['claude-opus-4-5', 4096],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-7', 4096],
  ['claude-haiku-4-5', 4096],
  ['claude-sonnet-4-6', 2048],
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
  return /haiku/.test(model) || /^claude-(3-|sonnet-4-5|sonnet-4-0|sonnet-4-2|sonnet-4$|opus-4-1|opus-4-0|opus-4-2|opus-4$)/.test(model);
}
