// The smallest prefix each model caches (Anthropic prompt-caching docs, "Cache limitations"; also quoted by
// OpenRouter's and rig's Anthropic guides): below it a cache_control breakpoint is silently ignored. The
// engine uses it to decide where the one prefix breakpoint goes (see request.ts).
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
];

/** Tokens below which nothing is cached for `model` (1,024 for the models the docs list at that value and for unknown ones). */
export function minCacheableTokens(model: string): number {
  return MINIMUMS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 1024;
}
