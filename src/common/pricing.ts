// What requests cost: a dated price table per model, overridable by the `fork.prices` setting,
// applied to the usage the provider reported for each request — never to an estimate. Pure.
import type { Usage } from './transcript';
import { inputTokens } from './transcript';

/** US dollars per million tokens, one figure per usage field (cache writes by TTL). */
export interface ModelPrice {
  input: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
}

export const PRICE_SOURCE = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
/** The day the table below was read from PRICE_SOURCE. */
export const PRICE_TABLE_DATE = '2026-12-01';

/**
 * The "Model pricing" table of PRICE_SOURCE as read on PRICE_TABLE_DATE. Models it does not list (the
 * default claude-sonnet-5-5 among them) have no price here: their cost is shown as unknown until
 * `fork.prices` gives one. Nothing is extrapolated from a model's family.
 */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-1': { input: 15, cacheWrite5m: 18.75, cacheWrite1h: 30, cacheRead: 1.5, output: 75 },
  'claude-opus-4': { input: 15, cacheWrite5m: 18.75, cacheWrite1h: 30, cacheRead: 1.5, output: 75 },
  'claude-sonnet-4': { input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 },
  'claude-3-7-sonnet': { input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 },
  'claude-3-5-sonnet': { input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 },
  'claude-3-5-haiku': { input: 0.8, cacheWrite5m: 1, cacheWrite1h: 1.6, cacheRead: 0.08, output: 4 },
  'claude-3-opus': { input: 15, cacheWrite5m: 18.75, cacheWrite1h: 30, cacheRead: 1.5, output: 75 },
  'claude-3-haiku': { input: 0.25, cacheWrite5m: 0.3, cacheWrite1h: 0.5, cacheRead: 0.03, output: 1.25 },
};

/** `fork.prices`: model id → prices per million tokens; cache prices may be left out (see parsePriceOverrides). */
export type PriceOverrides = Record<string, ModelPrice>;

export interface PriceLookup { price: ModelPrice; from: 'setting' | 'table'; key: string }

/**
 * The price of a model: the setting's entry for its exact id first, then the table's entry for the id
 * or its dated / `-latest` snapshot (claude-sonnet-4-20250514 is claude-sonnet-4). Undefined: unknown.
 */
export function priceFor(model: string, overrides: PriceOverrides = {}): PriceLookup | undefined {
  if (Object.prototype.hasOwnProperty.call(overrides, model)) return { price: overrides[model], from: 'setting', key: model };
  for (const [key, price] of Object.entries(PRICE_TABLE)) {
    if (model === key || new RegExp(`^${key.replace(/[.]/g, '\\.')}-(\\d{8}|latest)$`).test(model)) return { price, from: 'table', key };
  }
  return undefined;
}

/**
 * Validates a `fork.prices` value. Each model needs `input` and `output`; absent cache prices follow the
 * provider's published multipliers of the input price (5 m write ×1.25, 1 h write ×2, read ×0.1).
 */
export function parsePriceOverrides(value: unknown): { prices: PriceOverrides; errors: string[] } {
  const prices: PriceOverrides = {};
  const errors: string[] = [];
  if (value === undefined || value === null) return { prices, errors };
  if (typeof value !== 'object' || Array.isArray(value)) return { prices, errors: ['fork.prices must be an object of model id → prices.'] };
  for (const [model, entry] of Object.entries(value as Record<string, unknown>)) {
    const fields = (entry ?? {}) as Record<string, unknown>;
    const num = (name: keyof ModelPrice): number | undefined => {
      const v = fields[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        errors.push(`fork.prices["${model}"].${name} must be a non-negative number of dollars per million tokens.`);
        return undefined;
      }
      return v;
    };
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      errors.push(`fork.prices["${model}"] must be an object such as { "input": 3, "output": 15 }.`);
      continue;
    }
    const input = num('input');
    const output = num('output');
    if (input === undefined || output === undefined) {
      errors.push(`fork.prices["${model}"] needs "input" and "output" (dollars per million tokens).`);
      continue;
    }
    prices[model] = {
      input,
      output,
      cacheWrite5m: num('cacheWrite5m') ?? input * 1.25,
      cacheWrite1h: num('cacheWrite1h') ?? input * 2,
      cacheRead: num('cacheRead') ?? input * 0.1,
    };
  }
  return { prices, errors };
}

/** Cache-write tokens by TTL. Usage without the split (older records) counts all writes as 5 m ones. */
export function cacheWrites(usage: Usage): { w5m: number; w1h: number } {
  const split = usage.cache_creation;
  if (!split) return { w5m: usage.cache_creation_input_tokens, w1h: 0 };
  const rest = Math.max(0, usage.cache_creation_input_tokens - split.ephemeral_5m_input_tokens - split.ephemeral_1h_input_tokens);
  return { w5m: split.ephemeral_5m_input_tokens + rest, w1h: split.ephemeral_1h_input_tokens };
}

/** Dollars: every usage field at its own price. */
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

/** A cost and what the same tokens would have cost uncached (saved = uncachedUsd − usd, negative when writes dominate). */
export interface CostFigures { usd: number; uncachedUsd: number }

export function costFigures(usage: Usage, price: ModelPrice | undefined): CostFigures | undefined {
  return price ? { usd: costOf(usage, price), uncachedUsd: uncachedCostOf(usage, price) } : undefined;
}

/** $0.0042, $0.42, $12.30: at least two significant digits for small amounts. */
export function usdText(usd: number): string {
  if (usd === 0) return '$0.00';
  const abs = Math.abs(usd);
  const digits = abs >= 1 ? 2 : Math.min(6, Math.max(2, 1 - Math.floor(Math.log10(abs))));
  return `${usd < 0 ? '−' : ''}$${abs.toFixed(digits)}`;
}

export const NO_PRICE_TEXT = 'no price known';
