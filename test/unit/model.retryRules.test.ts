import { strict as assert } from 'node:assert';
import { retryAdvice } from '../../src/runtime/model/retryRules';

const headers = (values: Record<string, string>) => new Headers(values);

describe('model: retry rules (the SDK\'s)', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('retries 408, 409, 429 and 5xx, not other 4xx; x-should-retry overrides both ways', () => {
    for (const status of [408, 409, 429, 500, 503, 529]) assert.equal(retryAdvice(status, headers({}), now).retryable, true, String(status));
    for (const status of [400, 401, 403, 404, 413]) assert.equal(retryAdvice(status, headers({}), now).retryable, false, String(status));
    assert.equal(retryAdvice(500, headers({ 'x-should-retry': 'false' }), now).retryable, false);
    assert.equal(retryAdvice(400, headers({ 'x-should-retry': 'true' }), now).retryable, true);
  });

  it('waits retry-after-ms, else retry-after in seconds or as an HTTP-date; unusable values fall back', () => {
    assert.equal(retryAdvice(429, headers({ 'retry-after-ms': '250.5', 'retry-after': '9' }), now).delayMs, 250.5);
    assert.equal(retryAdvice(429, headers({ 'retry-after': '1.5' }), now).delayMs, 1500);
    assert.equal(retryAdvice(429, headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now).delayMs, 3000);
    assert.equal(retryAdvice(429, headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now).delayMs, undefined, 'a date in the past');
    assert.equal(retryAdvice(429, headers({ 'retry-after': 'soon' }), now).delayMs, undefined);
    assert.equal(retryAdvice(429, headers({ 'retry-after': '0' }), now).delayMs, undefined);
    assert.equal(retryAdvice(429, headers({ 'retry-after-ms': 'x', 'retry-after': '2' }), now).delayMs, 2000);
    assert.equal(retryAdvice(429, undefined, now).delayMs, undefined);
  });
});
