// Runs of forks started together wait until the fork/starts being served are answered (startBurst.ts).
import { strict as assert } from 'node:assert';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { StartBurst } from '../../src/runtime/fork/startBurst';

describe('fork start burst', () => {
  it('lets a run begin on the next turn when no start is being served', async () => {
    const burst = new StartBurst();
    await burst.settled();
  });

  it('holds runs while starts are served, including one dispatched in the turn after the last ended', async () => {
    const burst = new StartBurst();
    const first = burst.begin();
    let settled = false;
    void burst.settled().then(() => (settled = true));
    first();
    // The next queued fork/start is dispatched in the following turn: it keeps the runs waiting.
    const second = burst.begin();
    await nextTurn();
    await nextTurn();
    assert.equal(settled, false);
    second();
    second();
    while (!settled) await nextTurn();
  });

  it('lets runs begin at last while a start never ends (MAX_WAIT_MS)', async () => {
    const burst = new StartBurst();
    burst.begin();
    await burst.settled();
  });
});
