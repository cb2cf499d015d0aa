// What requests cost: the dated price table (priceTable.ts), overridable by `fork.prices` (editor) or
// `--prices FILE` (CLI), applied to the usage the provider reported for each request — never to an estimate.
// priceRequest is the one function that prices a request; every surface shows sums of its results. Pure.
import { canonicalModelId } from './models';
import { BATCH_DISCOUNT, PRICE_TABLE } from './priceTable';
import type { ModelPrice, PriceRow } from './priceTable';
import type { Usage } from './transcript';
import { inputTokens } from './transcript';

export type { ModelPrice, PriceRow } from './priceTable';
export { PRICE_SOURCE, PRICE_TABLE, PRICE_TABLE_DATE } from './priceTable';

/** `fork.prices`: model id → prices per million tokens; cache prices may be left out (see parsePriceOverrides). */
export type PriceOverrides = Record<string, ModelPrice>;

export type PriceFrom = 'setting' | 'table';

export interface PriceLookup { price: ModelPrice; from: PriceFrom; key: string; longPrompt?: PriceRow['longPrompt'] }

/** Where a request was priced: when it was made, and whether it went through the Batch API. */
export interface PriceContext { overrides?: PriceOverrides; at?: string; batch?: boolean }

/**
 * The price of a model on a day: the override for its exact id, then for its canonical id (a dated, `[1m]` or
 * cloud form of a known model), then the table's row in effect on `at` (an ISO time; none: today's row).
 */
export function priceFor(model: string, overrides: PriceOverrides = {}, at?: string): PriceLookup | undefined {
  const key = canonicalModelId(model);
  for (const id of [model, key]) {
    if (id !== undefined && Object.prototype.hasOwnProperty.call(overrides, id)) return { price: overrides[id], from: 'setting', key: id };
  }
  const rows = key ? PRICE_TABLE[key] : undefined;
  const row = rows && rowOn(rows, at);
  return row && key ? { price: row.price, from: 'table', key, ...(row.longPrompt ? { longPrompt: row.longPrompt } : {}) } : undefined;
}

function rowOn(rows: readonly PriceRow[], at: string | undefined): PriceRow | undefined {
  const day = (at ?? new Date().toISOString()).slice(0, 10);
  let found: PriceRow | undefined;
  for (const row of rows) if (!row.from || row.from <= day) found = row;
  return found ?? rows[0];
}

/** A cost and what the same tokens would have cost without the prompt cache (all input at the base price). */
export interface CostFigures { usd: number; uncachedUsd: number }

/** What one request cost, and which price produced it. */
export interface PricedRequest extends CostFigures { from: PriceFrom; key: string; longPrompt: boolean }

/**
 * What one request cost: the price in effect on its day, its prompt-length band (a prompt over the band's
 * threshold, cache reads and writes included, pays the band's rates on every token, output too), and the
 * Batch API discount. Undefined: no price is known for the model.
 */
export function priceRequest(model: string, usage: Usage, context: PriceContext = {}): PricedRequest | undefined {
  const lookup = priceFor(model, context.overrides, context.at);
  if (!lookup) return undefined;
  const long = lookup.longPrompt !== undefined && inputTokens(usage) > lookup.longPrompt.overTokens;
  const price = long ? lookup.longPrompt!.price : lookup.price;
  const factor = context.batch ? 1 - BATCH_DISCOUNT : 1;
  return { usd: costOf(usage, price) * factor, uncachedUsd: uncachedCostOf(usage, price) * factor, from: lookup.from, key: lookup.key, longPrompt: long };
}

/** One billed request: its usage and when it was made (an ISO time). */
export interface BilledRequest { usage: Usage; time: string }

/** The sum of priceRequest over requests of one model; undefined when the model has no price. */
export interface PricedRequests extends CostFigures { from: PriceFrom }

export function priceRequests(model: string, requests: Iterable<BilledRequest>, overrides: PriceOverrides = {}): PricedRequests | undefined {
  const lookup = priceFor(model, overrides);
  if (!lookup) return undefined;
  let usd = 0;
  let uncachedUsd = 0;
  for (const request of requests) {
    const priced = priceRequest(model, request.usage, { overrides, at: request.time })!;
    usd += priced.usd;
    uncachedUsd += priced.uncachedUsd;
  }
  return { usd, uncachedUsd, from: lookup.from };
}

export function addCosts(a: CostFigures | undefined, b: CostFigures | undefined): CostFigures | undefined {
  if (!a) return b && { usd: b.usd, uncachedUsd: b.uncachedUsd };
  if (!b) return { usd: a.usd, uncachedUsd: a.uncachedUsd };
  return { usd: a.usd + b.usd, uncachedUsd: a.uncachedUsd + b.uncachedUsd };
}

/**
 * Validates a `fork.prices` value (or a `--prices` file: `where` names it in messages). Each model needs
 * `input` and `output`; absent cache prices take the ratios of the table's row for that model (Sonnet 5.5
 * reads at 0.05x, Fable 5.1 at 0.025x), else the usual multipliers of the input price (5 m write ×1.25, 1 h
 * write ×2, read ×0.1).
 */
export function parsePriceOverrides(value: unknown, where = 'fork.prices'): { prices: PriceOverrides; errors: string[] } {
  const prices: PriceOverrides = {};
  const errors: string[] = [];
  if (value === undefined || value === null) return { prices, errors };
  if (typeof value !== 'object' || Array.isArray(value)) return { prices, errors: [`${where} must be an object of model id → prices.`] };
  for (const [model, entry] of Object.entries(value as Record<string, unknown>)) {
    const fields = (entry ?? {}) as Record<string, unknown>;
    const num = (name: keyof ModelPrice): number | undefined => {
      const v = fields[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        errors.push(`${where}["${model}"].${name} must be a non-negative number of dollars per million tokens.`);
        return undefined;
      }
      return v;
    };
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      errors.push(`${where}["${model}"] must be an object such as { "input": 3, "output": 15 }.`);
      continue;
    }
    const input = num('input');
    const output = num('output');
    if (input === undefined || output === undefined) {
      errors.push(`${where}["${model}"] needs "input" and "output" (dollars per million tokens).`);
      continue;
    }
    const ratio = ratiosOf(model);
    prices[model] = {
      input,
      output,
      cacheWrite5m: num('cacheWrite5m') ?? input * ratio.cacheWrite5m,
      cacheWrite1h: num('cacheWrite1h') ?? input * ratio.cacheWrite1h,
      cacheRead: num('cacheRead') ?? input * ratio.cacheRead,
    };
  }
  return { prices, errors };
}

function ratiosOf(model: string): { cacheWrite5m: number; cacheWrite1h: number; cacheRead: number } {
  const row = priceFor(model)?.price;
  if (!row || row.input === 0) return { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1 };
  return { cacheWrite5m: row.cacheWrite5m / row.input, cacheWrite1h: row.cacheWrite1h / row.input, cacheRead: row.cacheRead / row.input };
}

/** Cache-write tokens by TTL. Usage without the split (older records) counts all writes as 5 m ones. */
export function cacheWrites(usage: Usage): { w5m: number; w1h: number } {
  const split = usage.cache_creation;
  if (!split) return { w5m: usage.cache_creation_input_tokens, w1h: 0 };
  const rest = Math.max(0, usage.cache_creation_input_tokens - split.ephemeral_5m_input_tokens - split.ephemeral_1h_input_tokens);
  return { w5m: split.ephemeral_5m_input_tokens + rest, w1h: split.ephemeral_1h_input_tokens };
}

/** Dollars: every usage field at its own price (one band, no date: priceRequest chooses the price). */
export function costOf(usage: Usage, price: ModelPrice): number {
  const { w5m, w1h } = cacheWrites(usage);
  return (
    usage.input_tokens * price.input +
    w5m * price.cacheWrite5m +
    w1h * price.cacheWrite1h +
    usage.cache_read_input_tokens * price.cacheRead +
    usage.output_tokens * price.output
  ) / 1_000_000;
}

/** Dollars the same tokens would have cost without the prompt cache: all input at the base price. */
export function uncachedCostOf(usage: Usage, price: ModelPrice): number {
  return (inputTokens(usage) * price.input + usage.output_tokens * price.output) / 1_000_000;
}

/** $0.0042, $0.42, $12.30: at least two significant digits for small amounts. */
export function usdText(usd: number): string {
  if (usd === 0) return '$0.00';
  const abs = Math.abs(usd);
  const digits = abs >= 1 ? 2 : Math.min(6, Math.max(2, 1 - Math.floor(Math.log10(abs))));
  return `${usd < 0 ? '−' : ''}$${abs.toFixed(digits)}`;
}

/**
 * What the prompt cache did to a cost, in words, never as a negative saving. Writing to the cache costs
 * more than plain input (1.25× or 2×) and pays back only when later requests read it, so a first request
 * can cost more than it would have uncached; that is said as such. Forms: `sentence` (the chat: "the
 * prompt cache saved $0.011 this turn"), `row` ("saved $0.11 vs uncached"), `clause` ("saved $0.11", after
 * an "uncached $…" figure). `span` says over what, `later` who reads the writes ("turns", "requests").
 */
export function cacheEffectText(cost: CostFigures, options: { form?: 'sentence' | 'row' | 'clause'; span?: string; later?: string } = {}): string {
  const saved = cost.uncachedUsd - cost.usd;
  const form = options.form ?? 'sentence';
  const span = options.span ? ` ${options.span}` : '';
  // Below usdText's last digit (a millionth of a dollar) a difference is float noise, not an extra cost.
  if (saved > -5e-7) {
    const amount = usdText(Math.max(0, saved));
    return form === 'sentence' ? `the prompt cache saved ${amount}${span}` : form === 'row' ? `saved ${amount} vs uncached` : `saved ${amount}`;
  }
  const extra = usdText(-saved);
  if (form === 'row') return `cache writes cost ${extra} more than uncached`;
  if (form === 'clause') return `cache writes cost ${extra} more`;
  return `cache writes cost ${extra} more${span}; later ${options.later ?? 'requests'} read them`;
}

export const NO_PRICE_TEXT = 'no price known';

/** How a user gives a price, in the words of the surface they read it on. */
export type PriceHintSurface = 'editor' | 'cli';

/** "no price known for m (set fork.prices)" / "(pass --prices FILE)". */
export function noPriceText(model: string | undefined, surface: PriceHintSurface): string {
  const how = surface === 'editor' ? 'set the fork.prices setting' : 'pass --prices FILE or set FORK_AGENTS_PRICES';
  return `${NO_PRICE_TEXT} for ${model ?? 'this model'} (${how})`;
}
