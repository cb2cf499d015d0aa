// Numbers the Forks view shows outside the rows' costs: the budget a paused fork offers to continue
// with, and the store's size on a first open.
import * as assert from 'node:assert/strict';
import { parseBudget, raisedBudgetText } from '../../src/common/budget';
import { storeSizeText } from '../../src/common/forkDisplay';

describe('display: the paused row\'s budget and the store size', () => {
  it('offers twice a reached budget, never "0", in a form the budget parser takes', () => {
    assert.equal(raisedBudgetText({ usd: 0.001 }), '0.002');
    assert.equal(raisedBudgetText({ usd: 0.0004 }), '0.0008');
    assert.equal(raisedBudgetText({ usd: 0.25 }), '0.5');
    assert.equal(raisedBudgetText({ usd: 1.234 }), '2.47');
    assert.equal(raisedBudgetText({ tokens: 20000 }), '40000tokens');
    assert.equal(raisedBudgetText(undefined), '');
    for (const text of ['0.002', '0.0008', '0.5', '2.47', '40000tokens']) assert.equal(parseBudget(text).ok, true, text);
  });

  it('shows a small store in bytes or kilobytes, a large one in megabytes', () => {
    assert.equal(storeSizeText(512), '512 bytes');
    assert.equal(storeSizeText(14_600), '14 KB');
    assert.equal(storeSizeText(3 * 1024 * 1024 + 200_000), '3.2 MB');
  });
});
