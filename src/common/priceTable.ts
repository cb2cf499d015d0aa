// The published prices per model, dated: what pricing.ts applies to each request's reported usage. Pure data.
//
// Read 2026-12-01, checked again 2026-12-02. The pricing page itself (PRICE_SOURCE) shows no date and its
// current full text was not in the index (the newest copy found lists Fable 5.1 but not yet Opus 5.5, so it is
// from September 2026); each row names where its figures were read:
// [PP]  the model's own overview page on platform.claude.com ("Pricing" block: input, 5m / 1h cache write,
//       cache read, output), e.g. https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview,
//       https://platform.claude.com/docs/about-claude/models/whats-new-opus-5,
//       https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview,
//       https://platform.claude.com/docs/zh-CN/models/haiku-5-5/overview (both bands),
//       https://platform.claude.com/docs/zh-CN/models/fable-5-1/overview.md ("cache reads cut to a quarter"),
//       https://platform.claude.com/docs/en/models/fable-5/overview.md (Mythos 5 "shares Claude Fable 5's
//       specifications and pricing").
// [PS]  second-hand copies of the pricing page, each stating its read date: github.com/kurofune/claudit
//       v1.9.2 (page checked 2026-10-24: Haiku 5.5 bands; Sonnet 5.5 cache reads $0.20 → $0.10 on 2026-10-07),
//       github.com/TheKrush/PromptFuel v1.0.23 (same cut, "effective 2026-10-07"), github.com/archid21/rightsize
//       v0.10.2 (Fable 5.2 row; Opus 4.8 $5 / $25), docs.laozhang.ai Fable 5.2 note (Anthropic release
//       2026-11-09, $8 / $40), developersdigest.tech's Fable 5.2 notes (release notes and what's-new read
//       2026-11-09: $8 / $40, cache reads $0.20), github.com/phuryn/claude-usage v1.5.7 (platform.claude.com
//       checked 2026-12-01: Fable 5.2 and Mythos 5.2 $8 / $40, cache reads $0.20), and the 4.5-era pricing
//       mirror (Sonnet 4 / 4.5 long-context rates).
// Retired models keep their rows (models.ts `retiresOn`): older sessions are still priced.
// Disagreement: Sonnet 5.5's zh-CN overview still shows cache reads at $0.20; its whats-new page and [PS] say
// $0.10 from 2026-10-07. Both rows are kept, dated, so requests before that day keep the old price.

/** US dollars per million tokens, one figure per usage field (cache writes by TTL). */
export interface ModelPrice {
  input: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
}

/** One price period of a model: it applies from `from` (a UTC day, inclusive; none: always) until the next row's day. */
export interface PriceRow {
  from?: string;
  price: ModelPrice;
  /**
   * A second band by prompt length: a request whose prompt (uncached input + cache reads + cache writes) is
   * over `overTokens` pays these rates on every token, output included.
   */
  longPrompt?: { overTokens: number; price: ModelPrice };
}

export const PRICE_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing';
/** The day the table below was read. */
export const PRICE_TABLE_DATE = '2026-12-02';
/** Batch API: 50% off input and output ([PP] "Batch API: 50% discount on input and output"). */
export const BATCH_DISCOUNT = 0.5;

const p = (input: number, cacheWrite5m: number, cacheWrite1h: number, cacheRead: number, output: number): ModelPrice =>
  ({ input, cacheWrite5m, cacheWrite1h, cacheRead, output });

// Sonnet 4 and 4.5 with the 1M-context beta: prompts over 200K tokens at 2x input and 1.5x output (4.5-era
// pricing page). Later models bill the whole 1M window at one rate ([PS]: "Claude 4.6 and later models
// (except Claude Haiku 5.5) … include the full 1M token context window at standard pricing").
const SONNET_4_LONG = { overTokens: 200_000, price: p(6, 7.5, 12, 0.6, 22.5) };

/** Canonical model id (see models.ts) → its price periods, oldest first. */
export const PRICE_TABLE: Readonly<Record<string, readonly PriceRow[]>> = {
  'claude-fable-5-2': [{ price: p(8, 10, 16, 0.2, 40) }], // [PS] rightsize, claude-usage, developersdigest, laozhang; $8 / $40 also in [PP] comparison tables
  'claude-mythos-5-2': [{ price: p(8, 10, 16, 0.2, 40) }], // [PS] claude-usage (Fable 5.2's price); no Anthropic page read states it
  'claude-fable-5-1': [{ price: p(10, 12.5, 20, 0.25, 50) }], // [PP] $10 / $50, cache reads a quarter of Fable 5's; [PS]
  'claude-mythos-5-1': [{ price: p(10, 12.5, 20, 0.25, 50) }], // [PS]
  'claude-fable-5': [{ price: p(10, 12.5, 20, 1, 50) }], // [PP] $10 / $50; cache at the standard multipliers [PS]
  'claude-mythos-5': [{ price: p(10, 12.5, 20, 1, 50) }], // [PP] Fable 5's pricing
  'claude-opus-5-5': [{ price: p(4, 5, 8, 0.2, 20) }], // [PP]
  'claude-opus-5': [{ price: p(5, 6.25, 10, 0.5, 25) }], // [PP]
  'claude-sonnet-5-5': [{ price: p(2, 2.5, 4, 0.2, 10) }, { from: '2026-10-07', price: p(2, 2.5, 4, 0.1, 10) }], // [PP] [PS]
  'claude-sonnet-5': [{ price: p(2, 2.5, 4, 0.2, 10) }], // [PP]; the announced rise to $3 / $15 was called off [PS]
  'claude-haiku-5-5': [{ price: p(0.1, 0.125, 0.2, 0.01, 0.5), longPrompt: { overTokens: 100_000, price: p(0.5, 0.625, 1, 0.05, 2.5) } }], // [PP]
  'claude-opus-4-8': [{ price: p(5, 6.25, 10, 0.5, 25) }], // [PS]
  'claude-opus-4-7': [{ price: p(5, 6.25, 10, 0.5, 25) }], // [PS]
  'claude-opus-4-6': [{ price: p(5, 6.25, 10, 0.5, 25) }], // [PS]
  'claude-opus-4-5': [{ price: p(5, 6.25, 10, 0.5, 25) }], // 4.5-era pricing page
  'claude-sonnet-4-6': [{ price: p(3, 3.75, 6, 0.3, 15) }], // [PS]
  'claude-sonnet-4-5': [{ price: p(3, 3.75, 6, 0.3, 15), longPrompt: SONNET_4_LONG }],
  'claude-haiku-4-5': [{ price: p(1, 1.25, 2, 0.1, 5) }], // [PP] comparison tables $1 / $5; [PS]
  'claude-opus-4-1': [{ price: p(15, 18.75, 30, 1.5, 75) }],
  'claude-opus-4': [{ price: p(15, 18.75, 30, 1.5, 75) }],
  'claude-sonnet-4': [{ price: p(3, 3.75, 6, 0.3, 15), longPrompt: SONNET_4_LONG }],
  'claude-3-7-sonnet': [{ price: p(3, 3.75, 6, 0.3, 15) }],
  'claude-3-5-sonnet': [{ price: p(3, 3.75, 6, 0.3, 15) }],
  'claude-3-5-haiku': [{ price: p(0.8, 1, 1.6, 0.08, 4) }],
  'claude-3-opus': [{ price: p(15, 18.75, 30, 1.5, 75) }],
  'claude-3-haiku': [{ price: p(0.25, 0.3, 0.5, 0.03, 1.25) }],
};
