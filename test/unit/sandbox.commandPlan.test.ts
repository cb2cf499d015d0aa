// How an unsandboxed command is spawned: a login shell (`bash -lc`) with the runtime's environment and the
// command's own on top; FORK_AGENTS_BASH_LOGIN=0 (the test runtimes) gives `bash -c`.
import { strict as assert } from 'node:assert';
import { planCommand, shellFlags } from '../../src/runtime/sandbox/commandPlan';

describe('sandbox: the unsandboxed command plan', () => {
  it('runs bash -lc with the runtime\'s environment plus the command\'s own', () => {
    const plan = planCommand(undefined, 'npm test', '/work', { PORT: '4000' }, { PATH: '/bin', PORT: '1' });
    assert.ok(!('refused' in plan));
    assert.equal(plan.file, 'bash');
    assert.deepEqual(plan.args, ['-lc', 'npm test']);
    assert.deepEqual(plan.env, { PATH: '/bin', PORT: '4000' });
  });

  it('runs bash -c only when FORK_AGENTS_BASH_LOGIN is 0', () => {
    assert.equal(shellFlags({}), '-lc');
    for (const value of ['1', 'no', 'false', '']) assert.equal(shellFlags({ FORK_AGENTS_BASH_LOGIN: value }), '-lc', value);
    assert.equal(shellFlags({ FORK_AGENTS_BASH_LOGIN: '0' }), '-c');
    const plan = planCommand(undefined, 'true', '/work', {}, { FORK_AGENTS_BASH_LOGIN: '0' });
    assert.ok(!('refused' in plan) && plan.args[0] === '-c');
  });
});
