// The fork request cap: 200 unless the runtime's environment injects a smaller one (tests do, so a cap
// case needs a handful of requests rather than 200).
import * as assert from 'node:assert/strict';
import { forkRequestCap, MAX_FORK_REQUESTS } from '../../src/runtime/fork/forkContracts';

describe('fork request cap', () => {
  it('is 200 by default and when the variable is not a positive whole number', () => {
    assert.equal(MAX_FORK_REQUESTS, 200);
    for (const value of [undefined, '', '0', '-3', '2.5', 'many']) {
      assert.equal(forkRequestCap(value === undefined ? {} : { FORK_AGENTS_MAX_FORK_REQUESTS: value }), 200, String(value));
    }
  });

  it('takes FORK_AGENTS_MAX_FORK_REQUESTS when it is one', () => {
    assert.equal(forkRequestCap({ FORK_AGENTS_MAX_FORK_REQUESTS: '4' }), 4);
  });
});
