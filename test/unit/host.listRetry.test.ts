// The picker's models, asked for while the runtime was not reachable (or the endpoint's list failed), are
// asked for again until the endpoint's models arrive; then the workbench is told once.
import { strict as assert } from 'node:assert';
import { ListRetry } from '../../src/host/lm/listRetry';
import type { EndpointModels } from '../../src/host/lm/models';

const NONE: EndpointModels = { models: [], problem: 'the runtime is not reachable: connect ETIMEDOUT' };
const LISTED: EndpointModels = { models: [{ id: 'claude-sonnet-5-5', name: 'Claude Sonnet 5.5' }] };

/** A ListRetry whose list answers `answers` in turn (the last one again after that), with no pauses. */
function retryOver(answers: EndpointModels[], delaysMs = [0, 0, 0, 0]) {
  let calls = 0;
  let listed = 0;
  let gaveUp: string | undefined;
  let settle: () => void = () => undefined;
  const done = new Promise<void>(resolve => (settle = resolve));
  const retry = new ListRetry({
    list: async () => answers[Math.min(calls++, answers.length - 1)],
    onListed: () => {
      listed++;
      settle();
    },
    onGaveUp: problem => {
      gaveUp = problem;
      settle();
    },
    delaysMs,
  });
  return { retry, done, stats: () => ({ calls, listed, gaveUp }) };
}

describe('host: the picker\'s models asked for again', () => {
  it('tells the workbench once when the endpoint\'s models arrive after failed tries', async () => {
    const { retry, done, stats } = retryOver([NONE, NONE, LISTED]);
    retry.given(NONE);
    assert.equal(retry.retrying, true);
    retry.given(NONE); // the workbench asking again meanwhile starts no second round
    await done;
    assert.equal(retry.retrying, false);
    assert.deepEqual(stats(), { calls: 3, listed: 1, gaveUp: undefined });
    retry.dispose();
  });

  it('gives up after its last pause, keeping the configured list and saying why', async () => {
    const { retry, done, stats } = retryOver([NONE], [0, 0, 0]);
    retry.given(NONE);
    await done;
    assert.deepEqual(stats(), { calls: 3, listed: 0, gaveUp: NONE.problem });
    retry.dispose();
  });

  it('does nothing when the workbench was given the endpoint\'s models', async () => {
    const { retry, stats } = retryOver([LISTED], [0]);
    retry.given(LISTED);
    assert.equal(retry.retrying, false);
    assert.deepEqual(stats(), { calls: 0, listed: 0, gaveUp: undefined });
    retry.dispose();
  });

  it('stops a round under way when the workbench got the endpoint\'s models meanwhile', async () => {
    let release: (value: EndpointModels) => void = () => undefined;
    let calls = 0;
    let listed = 0;
    let asked: () => void = () => undefined;
    const called = new Promise<void>(resolve => (asked = resolve));
    const retry = new ListRetry({
      list: () => {
        calls++;
        asked();
        return new Promise(resolve => (release = resolve));
      },
      onListed: () => listed++,
      delaysMs: [0, 0],
    });
    retry.given(NONE);
    await called;
    retry.given(LISTED);
    assert.equal(retry.retrying, false);
    release(LISTED);
    // The released answer is handled on a later tick: after it, still nothing told and nothing scheduled.
    await new Promise(resolve => setImmediate(resolve));
    assert.deepEqual({ calls, listed, retrying: retry.retrying }, { calls: 1, listed: 0, retrying: false });
    retry.dispose();
  });
});
