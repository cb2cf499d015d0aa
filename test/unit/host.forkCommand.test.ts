// The chat's `/fork [--turns all|N] <directive>`: the same fork_turns rule as every other entry point.
import * as assert from 'node:assert/strict';
import { parseForkCommand } from '../../src/host/forks/forkDirective';

describe('chat /fork command parsing', () => {
  it('takes the directive, with an optional --turns all|N', () => {
    assert.deepEqual(parseForkCommand('write tests'), { ok: true, directive: 'write tests', turns: undefined });
    assert.deepEqual(parseForkCommand('--turns 2 write tests'), { ok: true, directive: 'write tests', turns: 2 });
    assert.deepEqual(parseForkCommand('--turns=all  write tests '), { ok: true, directive: 'write tests', turns: 'all' });
  });

  it('rejects every invalid turn count with the accepted forms', () => {
    for (const bad of ['none', '0', '-1', '1.5', '+3', '03', '1e2', '""']) {
      const parsed = parseForkCommand(`--turns ${bad} write tests`);
      assert.equal(parsed.ok, false, bad);
      assert.match(!parsed.ok ? parsed.error : '', /"all" or a positive whole number/, bad);
    }
    assert.equal(parseForkCommand('--turns= write tests').ok, false, 'an empty value');
  });

  it('rejects unknown options and an empty directive', () => {
    assert.match((parseForkCommand('--turn 2 x') as { error: string }).error, /Unknown option --turn/);
    assert.match((parseForkCommand('--turns 2') as { error: string }).error, /Say what the fork should do/);
    assert.match((parseForkCommand('   ') as { error: string }).error, /Say what the fork should do/);
  });

  it('takes --attempts N (1–8) before or after --turns; more than one attempt is a tournament', () => {
    assert.deepEqual(parseForkCommand('--attempts 3 fix the bug'), { ok: true, directive: 'fix the bug', turns: undefined, attempts: 3 });
    assert.deepEqual(parseForkCommand('--turns 2 --attempts=4 fix it'), { ok: true, directive: 'fix it', turns: 2, attempts: 4 });
    assert.deepEqual(parseForkCommand('--attempts 1 --turns all fix it'), { ok: true, directive: 'fix it', turns: 'all' });
    for (const bad of ['0', '9', 'x', '2.5', '']) {
      assert.match((parseForkCommand(`--attempts ${bad} fix`) as { error: string }).error ?? '', /--attempts takes a whole number from 1 to 8/, bad);
    }
  });
});
