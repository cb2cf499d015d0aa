// The runtime's injectable waits and caps: a positive whole number from the environment, else the default.
import { strict as assert } from 'node:assert';
import { positiveWholeFromEnv } from '../../src/runtime/envKnob';

describe('runtime: waits and caps from the environment', () => {
  it('takes a positive whole number and keeps the default for anything else', () => {
    assert.equal(positiveWholeFromEnv({ X: '100' }, 'X', 2000), 100);
    for (const value of [undefined, '', '0', '-5', '2.5', 'soon', ' ']) {
      assert.equal(positiveWholeFromEnv({ X: value }, 'X', 2000), 2000, JSON.stringify(value));
    }
  });
});
