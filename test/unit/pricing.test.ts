// Price arithmetic (issue 14) against figures computed by hand from the published table.
import * as assert from 'node:assert/strict';
import { budgetReached, budgetStop, parseBudget } from '../../src/common/budget';
import { PRICE_TABLE, costOf, parsePriceOverrides, priceFor, uncachedCostOf, usdText } from '../../src/common/pricing';
import type { Usage } from '../../src/common/transcript';
import { addUsage } from '../../src/common/transcript';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);
const usage = (fields: Partial<Usage>): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...fields });
const split = (w5m: number, w1h: number) => ({ cache_creation_input_tokens: w5m + w1h, cache_creation: { ephemeral_5m_input_tokens: w5m, ephemeral_1h_input_tokens: w1h } });

describe('pricing', () => {
  const haiku35 = PRICE_TABLE['claude-3-5-haiku'];
  const sonnet4 = PRICE_TABLE['claude-sonnet-4'];

  it('prices each usage field at its own rate (one million tokens of each, Claude Haiku 3.5)', () => {
    close(costOf(usage({ input_tokens: 1_000_000 }), haiku35), 0.8);
    close(costOf(usage(split(1_000_000, 0)), haiku35), 1);
    close(costOf(usage(split(0, 1_000_000)), haiku35), 1.6);
    close(costOf(usage({ cache_read_input_tokens: 1_000_000 }), haiku35), 0.08);
    close(costOf(usage({ output_tokens: 1_000_000 }), haiku35), 4);
  });

  it('adds the fields up, both TTLs in one request (Claude Sonnet 4)', () => {
    // 1000×3 + 2000×3.75 + 4000×6 + 10000×0.30 + 500×15 = 45000 micro-dollars.
    const u = usage({ input_tokens: 1000, cache_read_input_tokens: 10_000, output_tokens: 500, ...split(2000, 4000) });
    close(costOf(u, sonnet4), 0.045);
    // Uncached: (1000 + 6000 + 10000) × 3 + 500 × 15 = 58500 micro-dollars.
    close(uncachedCostOf(u, sonnet4), 0.0585);
  });

  it('counts cache writes without a TTL split as 5-minute writes', () => {
    close(costOf(usage({ cache_creation_input_tokens: 4000 }), sonnet4), 0.015);
  });

  it('keeps the TTL split when usage is summed', () => {
    const sum = addUsage(usage(split(100, 0)), addUsage(usage(split(0, 300)), usage({ cache_creation_input_tokens: 50 })));
    assert.deepEqual(sum.cache_creation, { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 300 });
    // 150 × 3.75 + 300 × 6 = 2362.5 micro-dollars.
    close(costOf(sum, sonnet4), 0.0023625);
  });

  it('finds dated snapshots, and no price for models the table does not list', () => {
    assert.equal(priceFor('claude-sonnet-4-20250514')?.key, 'claude-sonnet-4');
    assert.equal(priceFor('claude-opus-4-1-20250805')?.key, 'claude-opus-4-1');
    assert.equal(priceFor('claude-opus-4-20250514')?.key, 'claude-opus-4');
    assert.equal(priceFor('claude-sonnet-5-5'), undefined);
    assert.equal(priceFor('claude-sonnet-4-5'), undefined);
  });

  it('takes fork.prices first, deriving absent cache prices from the input price', () => {
    const { prices, errors } = parsePriceOverrides({ 'claude-sonnet-5-5': { input: 2, output: 10 }, 'claude-sonnet-4': { input: 1, output: 2, cacheRead: 0.5 } });
    assert.deepEqual(errors, []);
    assert.deepEqual(priceFor('claude-sonnet-5-5', prices), { price: { input: 2, output: 10, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2 }, from: 'setting', key: 'claude-sonnet-5-5' });
    assert.equal(priceFor('claude-sonnet-4', prices)?.price.cacheRead, 0.5);
    // 1000 × 2 + 1000 × 2.5 + 1000 × 4 + 1000 × 0.2 + 1000 × 10 = 18700 micro-dollars.
    const u = usage({ input_tokens: 1000, cache_read_input_tokens: 1000, output_tokens: 1000, ...split(1000, 1000) });
    close(costOf(u, priceFor('claude-sonnet-5-5', prices)!.price), 0.0187);
  });

  it('rejects bad fork.prices with a message naming the model', () => {
    const { errors } = parsePriceOverrides({ m: { input: -1, output: 2 }, n: 'cheap' });
    assert.equal(errors.length, 3);
    assert.match(errors.join(' '), /fork\.prices\["m"\]\.input/);
    assert.match(errors.join(' '), /fork\.prices\["n"\]/);
  });

  it('shows small amounts with two significant digits', () => {
    assert.equal(usdText(0.045), '$0.045');
    assert.equal(usdText(0.0023625), '$0.0024');
    assert.equal(usdText(12.3), '$12.30');
    assert.equal(usdText(0), '$0.00');
  });
});

describe('budgets', () => {
  it('parses dollars and tokens, and refuses anything else', () => {
    assert.deepEqual(parseBudget('0.25'), { ok: true, value: { usd: 0.25 } });
    assert.deepEqual(parseBudget('$1.5'), { ok: true, value: { usd: 1.5 } });
    assert.deepEqual(parseBudget('20000tokens'), { ok: true, value: { tokens: 20000 } });
    assert.deepEqual(parseBudget('20000 tokens'), { ok: true, value: { tokens: 20000 } });
    for (const bad of ['', 'lots', '-1', '20k', '1e3', '0.25tokens']) assert.equal(parseBudget(bad).ok, false, bad);
  });

  it('counts every token against a token budget', () => {
    const u = usage({ input_tokens: 100, cache_read_input_tokens: 800, cache_creation_input_tokens: 50, output_tokens: 50 });
    assert.equal(budgetReached({ tokens: 1000 }, u, undefined), true);
    assert.equal(budgetReached({ tokens: 1001 }, u, undefined), false);
  });

  it('cannot check a dollar budget without a price, and says so', () => {
    assert.match(budgetStop('Its budget', { usd: 1 }, usage({}), undefined, 'claude-sonnet-5-5')!, /no price is known for claude-sonnet-5-5/);
    assert.equal(budgetStop('Its budget', { usd: 1 }, usage({ output_tokens: 1000 }), PRICE_TABLE['claude-sonnet-4'], 'x'), undefined);
    assert.match(budgetStop('Its budget', { usd: 0.01 }, usage({ output_tokens: 1000 }), PRICE_TABLE['claude-sonnet-4'], 'x')!, /reached \(spent \$0\.0150\)/);
  });
});
