// Several disconnects while a fork runs must not leave timers that stop the runtime
// under a client that connected afterwards. Timers are driven by hand, so nothing here waits on a clock.
import * as assert from 'node:assert/strict';
import { IdleExit } from '../../src/runtime/idleExit';

function rig() {
  const timers = new Map<number, () => void>();
  let nextTimer = 1;
  let clients = 0;
  let busy = true;
  let idle: () => void = () => undefined;
  let idlePromise = new Promise<void>(resolve => (idle = resolve));
  const stops: string[] = [];
  const exit = new IdleExit({
    delayMs: 1000,
    clients: () => clients,
    busy: () => busy,
    whenIdle: () => (busy ? idlePromise : Promise.resolve()),
    stop: () => stops.push('stop'),
    setTimer: callback => {
      const id = nextTimer++;
      timers.set(id, callback);
      return id;
    },
    clearTimer: handle => timers.delete(handle as number),
  });
  return {
    exit,
    stops,
    timers,
    setClients: (n: number) => (clients = n),
    finishWork: async () => {
      busy = false;
      idle();
      await new Promise(resolve => setImmediate(resolve));
    },
    startWork: () => {
      busy = true;
      idlePromise = new Promise<void>(resolve => (idle = resolve));
    },
    fireAll: () => {
      for (const [id, callback] of [...timers]) {
        timers.delete(id);
        callback();
      }
    },
  };
}

describe('runtime idle exit', () => {
  it('disconnects during a fork leave one timer, and a client that connects before it fires keeps the runtime', async () => {
    const r = rig();
    for (let i = 0; i < 3; i++) {
      r.setClients(1);
      r.exit.update();
      r.setClients(0);
      r.exit.update();
    }
    await r.finishWork();
    assert.equal(r.timers.size, 1, 'one timer, not one per disconnect');
    r.setClients(1);
    r.exit.update();
    assert.equal(r.timers.size, 0);
    r.fireAll();
    assert.deepEqual(r.stops, []);
  });

  it('a timer that fires with a client connected does not stop the runtime', async () => {
    const r = rig();
    await r.finishWork();
    r.exit.update();
    await tick();
    assert.equal(r.timers.size, 1);
    r.setClients(1); // connected, but update() not called yet (the order of events on a busy loop)
    r.fireAll();
    assert.deepEqual(r.stops, []);
  });

  it('a timer that fires while work runs waits for the work, then for a new quiet period', async () => {
    const r = rig();
    await r.finishWork();
    r.exit.update();
    await tick();
    r.startWork();
    r.fireAll();
    assert.deepEqual(r.stops, []);
    assert.equal(r.timers.size, 0);
    await r.finishWork();
    assert.equal(r.timers.size, 1);
    r.fireAll();
    assert.deepEqual(r.stops, ['stop']);
  });

  it('stops once after the quiet period with no client and no work', async () => {
    const r = rig();
    await r.finishWork();
    r.exit.update();
    await tick();
    r.fireAll();
    assert.deepEqual(r.stops, ['stop']);
  });
});

const tick = () => new Promise(resolve => setImmediate(resolve));
