// Runs of forks started together wait until the fork/starts being served are answered (startBurst.ts).
import { strict as assert } from 'node:assert';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { StartBurst } from '../../src/runtime/fork/startBurst';

describe('fork start burst', () => {
  it('lets a run begin after a quiet period when no start is being served', async () => {
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

  it('holds runs through a quiet period after the last start ended, and a start within it begins a new one', async () => {
    // Periods no test run reaches: only begin() and its end decide here, never the clock.
    const burst = new StartBurst({ quietMs: 60_000, maxWaitMs: 120_000 });
    let settled = false;
    void burst.settled().then(() => (settled = true));
    burst.begin()();
    for (let i = 0; i < 5; i++) await nextTurn();
    // The one-turn rule released runs here; a sibling's fork/start read a few turns later still holds them.
    assert.equal(settled, false);
    const late = burst.begin();
    await nextTurn();
    late();
    await nextTurn();
    assert.equal(settled, false);
  });

  it('lets runs begin at last while a start never ends (MAX_WAIT_MS)', async () => {
    const burst = new StartBurst();
    burst.begin();
    await burst.settled();
  });
});
