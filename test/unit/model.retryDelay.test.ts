// The backoff between retries: production's 500 ms base doubled per attempt, the server's retry-after first,
// and the base tests inject (FORK_AGENTS_RETRY_BASE_MS) so the runtime tests need not wait it out.
import { strict as assert } from 'node:assert';
import { RETRY_BASE_MS, retryDelayMs } from '../../src/runtime/agent/retry';

describe('model: retry backoff', () => {
  it('doubles a 500 ms base per attempt, with under 250 ms of jitter, at most 20 s', () => {
    assert.equal(RETRY_BASE_MS, 500);
    for (const [attempt, base] of [[0, 500], [1, 1000], [2, 2000], [3, 4000]]) {
      const delay = retryDelayMs(attempt, undefined, {});
      assert.ok(delay >= base && delay < base + 250, `attempt ${attempt}: ${delay} ms`);
    }
    assert.equal(retryDelayMs(10, undefined, {}), 20_000);
  });

  it('takes the server\'s retry-after first, at most a minute', () => {
    assert.equal(retryDelayMs(0, 40, { FORK_AGENTS_RETRY_BASE_MS: '5' }), 40);
    assert.equal(retryDelayMs(3, 90_000, {}), 60_000);
  });

  it('takes FORK_AGENTS_RETRY_BASE_MS when it is a positive whole number, else the 500 ms base', () => {
    for (const [attempt, base] of [[0, 5], [1, 10], [2, 20]]) {
      const delay = retryDelayMs(attempt, undefined, { FORK_AGENTS_RETRY_BASE_MS: '5' });
      assert.ok(delay >= base && delay < base + 3, `attempt ${attempt}: ${delay} ms`);
    }
    for (const value of ['0', '-5', 'soon', '2.5', '']) {
      assert.ok(retryDelayMs(0, undefined, { FORK_AGENTS_RETRY_BASE_MS: value }) >= 500, JSON.stringify(value));
    }
  });
});
