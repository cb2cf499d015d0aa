// The fork manager's run queue: at most maxConcurrent runs at once, the rest in start order; busy and
// whenIdle for the runtime's idle exit.
import { strict as assert } from 'node:assert';
import { ForkRunQueue } from '../../src/runtime/fork/forkRunQueue';
import type { ForkRun } from '../../src/runtime/fork/trackedFork';

/** A stand-in run: the queue only keeps and hands back the object. */
const runNamed = (id: string) => ({ id }) as ForkRun;

function recordingQueue() {
  const started: string[] = [];
  const ends = new Map<string, () => void>();
  const queue = new ForkRunQueue(run => {
    started.push(run.id);
    return new Promise<void>(resolve => ends.set(run.id, resolve));
  });
  /** Ends a started run and lets the queue's bookkeeping after it settle. */
  const end = async (id: string) => {
    ends.get(id)!();
    await new Promise(resolve => setImmediate(resolve));
  };
  return { queue, started, end };
}

describe('fork: the run queue', () => {
  it('runs at most maxConcurrent at once and starts the next in order as one ends', async () => {
    const { queue, started, end } = recordingQueue();
    queue.maxConcurrent = 2;
    assert.deepEqual(['a', 'b', 'c', 'd'].map(id => queue.add(runNamed(id))), [true, true, false, false], 'add says which started at once');
    assert.deepEqual(started, ['a', 'b']);
    await end('b');
    assert.deepEqual(started, ['a', 'b', 'c']);
    await end('a');
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  });

  it('a waiting run can be taken out; a running one cannot', () => {
    const { queue, started } = recordingQueue();
    queue.maxConcurrent = 1;
    const first = runNamed('a');
    const second = runNamed('b');
    queue.add(first);
    queue.add(second);
    assert.equal(queue.isWaiting(second), true);
    assert.equal(queue.remove(first), false);
    assert.equal(queue.remove(second), true);
    assert.equal(queue.isWaiting(second), false);
    assert.deepEqual(started, ['a']);
  });

  it('is busy while a run is queued or running; whenIdle resolves once none is', async () => {
    const { queue, end } = recordingQueue();
    assert.equal(queue.busy, false);
    await queue.whenIdle();
    queue.maxConcurrent = 1;
    queue.add(runNamed('a'));
    queue.add(runNamed('b'));
    let idle = false;
    const whenIdle = queue.whenIdle().then(() => { idle = true; });
    await end('a');
    assert.equal(queue.busy, true);
    assert.equal(idle, false);
    await end('b');
    await whenIdle;
    assert.equal(queue.busy, false);
  });
});
