// Damage done to a store's files as a failing disk or a stray editor would, for the tests of what loading
// and `doctor` make of it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';

/** Cuts the transcript's tool_results line to 200 characters plus garbage; returns its 1-based number. */
export function damageToolResultsLine(file: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex(line => line.includes('"kind":"tool_results"'));
  assert.ok(index > 0, 'the transcript has a tool_results line');
  lines[index] = lines[index].slice(0, 200) + '\u0000garbage{{';
  fs.writeFileSync(file, lines.join('\n'));
  return index + 1;
}
