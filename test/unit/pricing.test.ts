// Price arithmetic against figures computed by hand from the published table.
import * as assert from 'node:assert/strict';
import { budgetReached, budgetStop, parseBudget } from '../../src/common/budget';
import { cacheEffectText, costOf, noPriceText, parsePriceOverrides, priceFor, priceRequest, priceRequests, uncachedCostOf, usdText } from '../../src/common/pricing';
import type { Usage } from '../../src/common/transcript';
import { addUsage } from '../../src/common/transcript';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);
const usage = (fields: Partial<Usage>): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...fields });
const split = (w5m: number, w1h: number) => ({ cache_creation_input_tokens: w5m + w1h, cache_creation: { ephemeral_5m_input_tokens: w5m, ephemeral_1h_input_tokens: w1h } });

describe('pricing', () => {
  const haiku35 = priceFor('claude-3-5-haiku')!.price;
  const sonnet4 = priceFor('claude-sonnet-4')!.price;

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

  it('finds dated snapshots and cloud ids, and no price for models the table does not list', () => {
    assert.equal(priceFor('claude-sonnet-4-20250514')?.key, 'claude-sonnet-4');
    assert.equal(priceFor('claude-opus-4-1-20250805')?.key, 'claude-opus-4-1');
    assert.equal(priceFor('claude-opus-4-20250514')?.key, 'claude-opus-4');
    assert.equal(priceFor('anthropic.claude-sonnet-5-5')?.key, 'claude-sonnet-5-5');
    assert.equal(priceFor('claude-sonnet-5-5[1m]')?.key, 'claude-sonnet-5-5');
    assert.equal(priceFor('claude-future-9'), undefined);
    assert.equal(priceRequest('claude-future-9', usage({ output_tokens: 1 })), undefined);
  });

  it('prices every current model of the pricing page (figures per million tokens, as read 2026-12-01 / 2026-12-02)', () => {
    const rows: Record<string, [number, number, number, number, number]> = {
      'claude-fable-5-2': [8, 10, 16, 0.2, 40],
      // Third-party copy only (claude-usage v1.5.7, platform.claude.com checked 2026-12-01): Fable 5.2's price.
      'claude-mythos-5-2': [8, 10, 16, 0.2, 40],
      'claude-fable-5-1': [10, 12.5, 20, 0.25, 50],
      'claude-mythos-5-1': [10, 12.5, 20, 0.25, 50],
      'claude-opus-5-5': [4, 5, 8, 0.2, 20],
      'claude-opus-5': [5, 6.25, 10, 0.5, 25],
      'claude-sonnet-5-5': [2, 2.5, 4, 0.1, 10],
      'claude-sonnet-5': [2, 2.5, 4, 0.2, 10],
      'claude-haiku-5-5': [0.1, 0.125, 0.2, 0.01, 0.5],
      'claude-opus-4-8': [5, 6.25, 10, 0.5, 25],
      'claude-sonnet-4-6': [3, 3.75, 6, 0.3, 15],
      'claude-haiku-4-5': [1, 1.25, 2, 0.1, 5],
    };
    for (const [model, [input, w5m, w1h, read, output]] of Object.entries(rows)) {
      assert.deepEqual(priceFor(model, {}, '2026-12-01T12:00:00Z')?.price, { input, cacheWrite5m: w5m, cacheWrite1h: w1h, cacheRead: read, output }, model);
    }
  });

  it('still prices a retired model (Sonnet 4.5 retired 2026-11-30, sonnet-4-5/overview read 2026-12-02), so older sessions keep their cost', () => {
    assert.deepEqual(priceFor('claude-sonnet-4-5-20250929', {}, '2026-12-02T12:00:00Z')?.price, { input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 });
  });

  it('applies a price change from its day on: Sonnet 5.5 cache reads $0.20 before 2026-10-07, $0.10 from it', () => {
    const reads = usage({ cache_read_input_tokens: 1_000_000 });
    close(priceRequest('claude-sonnet-5-5', reads, { at: '2026-10-06T23:59:59Z' })!.usd, 0.2);
    close(priceRequest('claude-sonnet-5-5', reads, { at: '2026-10-07T00:00:00Z' })!.usd, 0.1);
    close(priceRequest('claude-sonnet-5-5', reads, { at: '2026-09-28T10:00:00Z' })!.usd, 0.2);
    // Two requests a day apart are each priced on their own day.
    const both = priceRequests('claude-sonnet-5-5', [{ usage: reads, time: '2026-10-06T12:00:00Z' }, { usage: reads, time: '2026-10-08T12:00:00Z' }]);
    close(both!.usd, 0.3);
    assert.equal(both!.from, 'table');
  });

  it('prices Haiku 5.5 by each request\'s prompt length: over 100,000 tokens (cache included) pays the high band on every token', () => {
    // 100,000 prompt tokens exactly: low band. 50,000 input + 50,000 read = 5000 + 500 µ$; 1000 out = 500 µ$.
    const low = usage({ input_tokens: 50_000, cache_read_input_tokens: 50_000, output_tokens: 1000 });
    const lowCost = priceRequest('claude-haiku-5-5', low)!;
    close(lowCost.usd, 0.006);
    assert.equal(lowCost.longPrompt, false);
    // One more cache-write token: 50,000 × 0.5 + 50,000 × 0.05 + 1 × 0.625 + 1000 × 2.5 = 30000.625 µ$.
    const high = usage({ input_tokens: 50_000, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 1, output_tokens: 1000 });
    const highCost = priceRequest('claude-haiku-5-5', high)!;
    close(highCost.usd, 0.030000625);
    assert.equal(highCost.longPrompt, true);
    // Summed usage must not decide the band: two low requests stay low although their sum is over 100,000.
    close(priceRequests('claude-haiku-5-5', [{ usage: low, time: '2026-11-01T00:00:00Z' }, { usage: low, time: '2026-11-01T00:01:00Z' }])!.usd, 0.012);
  });

  it('applies the Sonnet 4.5 long-context rates over 200K and the Batch API discount', () => {
    const long = usage({ input_tokens: 200_001, output_tokens: 1000 });
    close(priceRequest('claude-sonnet-4-5', long)!.usd, (200_001 * 6 + 1000 * 22.5) / 1e6);
    close(priceRequest('claude-sonnet-4-6', long)!.usd, (200_001 * 3 + 1000 * 15) / 1e6, );
    close(priceRequest('claude-opus-5-5', usage({ input_tokens: 1_000_000, output_tokens: 1_000_000 }), { batch: true })!.usd, 12);
  });

  it('takes fork.prices first, deriving absent cache prices from the model\'s own ratios', () => {
    const { prices, errors } = parsePriceOverrides({ 'claude-sonnet-5-5': { input: 2, output: 10 }, 'claude-sonnet-4': { input: 1, output: 2, cacheRead: 0.5 }, 'my-model': { input: 1, output: 2 } });
    assert.deepEqual(errors, []);
    // Sonnet 5.5 reads at 0.05x its input price (pricing page footnote), writes at 1.25x / 2x.
    assert.deepEqual(priceFor('claude-sonnet-5-5', prices), { price: { input: 2, output: 10, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.1 }, from: 'setting', key: 'claude-sonnet-5-5' });
    assert.equal(priceFor('claude-sonnet-4', prices)?.price.cacheRead, 0.5);
    assert.equal(priceFor('my-model', prices)?.price.cacheRead, 0.1, 'an unknown model: the usual 0.1x');
    assert.equal(priceFor('claude-sonnet-5-5-20261001', prices)?.from, 'setting', 'a dated form of a priced id takes the setting too');
    // 1000 × 2 + 1000 × 2.5 + 1000 × 4 + 1000 × 0.1 + 1000 × 10 = 18600 micro-dollars.
    const u = usage({ input_tokens: 1000, cache_read_input_tokens: 1000, output_tokens: 1000, ...split(1000, 1000) });
    close(priceRequest('claude-sonnet-5-5', u, { overrides: prices })!.usd, 0.0186);
  });

  it('says how to give a price in the words of each surface', () => {
    assert.equal(noPriceText('m', 'editor'), 'no price known for m (set the fork.prices setting)');
    assert.match(noPriceText('m', 'cli'), /--prices FILE/);
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
    assert.match(budgetStop('Its budget', { usd: 1 }, usage({}), undefined, 'claude-future-9')!, /no price is known for claude-future-9: set fork.prices \(editor\) or pass --prices FILE/);
    assert.equal(budgetStop('Its budget', { usd: 1 }, usage({ output_tokens: 1000 }), 0.015, 'x'), undefined);
    assert.match(budgetStop('Its budget', { usd: 0.01 }, usage({ output_tokens: 1000 }), 0.015, 'x')!, /reached \(spent \$0\.0150\)/);
  });

  it('says a first request\'s cache writes cost more, never a negative saving (Claude Sonnet 4)', () => {
    // 100 × 3 + 10000 × 3.75 + 50 × 15 = 38550 micro-dollars; uncached (100 + 10000) × 3 + 50 × 15 = 31050.
    const first = usage({ input_tokens: 100, output_tokens: 50, ...split(10_000, 0) });
    const sonnet4 = priceFor('claude-sonnet-4')!.price;
    const cost = { usd: costOf(first, sonnet4), uncachedUsd: uncachedCostOf(first, sonnet4) };
    assert.equal(cacheEffectText(cost, { span: 'this turn', later: 'turns' }), 'cache writes cost $0.0075 more this turn; later turns read them');
    assert.equal(cacheEffectText(cost, { form: 'row' }), 'cache writes cost $0.0075 more than uncached');
    assert.equal(cacheEffectText(cost, { form: 'clause' }), 'cache writes cost $0.0075 more');
    // The next request reads those 10000 tokens: 100 × 3 + 10000 × 0.30 + 50 × 15 = 4050; uncached 31050.
    const next = usage({ input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 10_000 });
    const read = { usd: costOf(next, sonnet4), uncachedUsd: uncachedCostOf(next, sonnet4) };
    assert.equal(cacheEffectText(read, { span: 'this turn' }), 'the prompt cache saved $0.027 this turn');
    assert.equal(cacheEffectText(read, { form: 'row' }), 'saved $0.027 vs uncached');
    // Float noise below a millionth of a dollar is no extra cost.
    assert.equal(cacheEffectText({ usd: 0.1 + 0.2, uncachedUsd: 0.3 }), 'the prompt cache saved $0.00');
    for (const c of [cost, read]) for (const form of ['sentence', 'row', 'clause'] as const) assert.doesNotMatch(cacheEffectText(c, { form }), /[−-]\$/);
  });
});
