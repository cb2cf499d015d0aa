// The terminal asks one question at a time: a tournament's attempts may ask together, and two prompts on
// one terminal would interleave. oneAtATime starts a question only once the one before it was answered.
import * as assert from 'node:assert/strict';
import { oneAtATime } from '../../src/cli/commands/terminalApproval';

describe('cli: one terminal question at a time', () => {
  it('starts the second question only after the first is answered, and answers each its own', async () => {
    const started: string[] = [];
    const answers = new Map<string, (answer: string) => void>();
    const ask = oneAtATime((question: string) => {
      started.push(question);
      return new Promise<string>(resolve => answers.set(question, resolve));
    });
    const first = ask('attempt 1');
    const second = ask('attempt 2');
    await new Promise(resolve => setImmediate(resolve));
    assert.deepEqual(started, ['attempt 1'], 'the second waits while the first is open');
    answers.get('attempt 1')!('y');
    assert.equal(await first, 'y');
    await new Promise(resolve => setImmediate(resolve));
    assert.deepEqual(started, ['attempt 1', 'attempt 2']);
    answers.get('attempt 2')!('n');
    assert.equal(await second, 'n');
  });

  it('goes on to the next question after one that failed', async () => {
    const ask = oneAtATime(async (question: string) => {
      if (question === 'bad') throw new Error('terminal gone');
      return question;
    });
    const failed = ask('bad');
    const next = ask('good');
    await assert.rejects(failed, /terminal gone/);
    assert.equal(await next, 'good');
  });
});
