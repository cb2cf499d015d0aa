// Run with `npm test` (Node's built-in test runner).
const test = require('node:test');
const assert = require('node:assert');
const { add, sum } = require('../src/math');

test('add adds two numbers', () => {
  assert.strictEqual(add(2, 3), 5);
});

test('sum adds a list', () => {
  assert.strictEqual(sum([1, 2, 3, 4]), 10);
});
