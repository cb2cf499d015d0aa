// Forks that ended (or paused at their budget) leave memory when idle, like chats, and are streamed
// in again on use. Through the real runtime with a short idle time (FORK_AGENTS_EVICT_IDLE_MS), waiting on the
// runtime log's eviction lines: each fork's history, transcript, announcement and continuation are exactly its own.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkAnnounce, forkHistory, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const FORKS = 6;
const directiveOf = (n: number) => `report on colour number ${n}`;
const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

describe('runtime: idle forks leave memory and come back on use', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  /** Resolves once the runtime log satisfies `done` (a watch on its folder, no polling sleeps). */
  const logUntil = (done: (text: string) => boolean) => new Promise<void>(resolve => {
    const log = runtimeLogPath(h.storeDir);
    const check = () => {
      if (!done(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '')) return;
      watcher.close();
      resolve();
    };
    const watcher = fs.watch(path.dirname(log), check);
    check();
  });
  const evicted = (id: string) => `session ${id} left memory (idle)`;
  const evictions = (text: string, id: string) => text.split('\n').filter(line => line.includes(evicted(id))).length;
  /** Every fork's eviction line has appeared more than `times` times. */
  const allEvicted = (ids: string[], times = 0) => logUntil(text => ids.every(id => evictions(text, id) > times));

  it('many ended forks are evicted after the idle time; each still reads, announces and continues with exactly its history', async () => {
    process.env.FORK_AGENTS_EVICT_IDLE_MS = '300';
    try {
      h = await startHarness();
    } finally {
      delete process.env.FORK_AGENTS_EVICT_IDLE_MS;
    }
    h.fake.setResponder(r => {
      if (!isForkRequest(r)) return say('noted');
      const asked = /report on colour number (\d+)/.exec(r.rawBody)?.[1];
      const continued = r.rawBody.includes('and one more thing');
      return say(continued ? `Scope: colour ${asked}.\nResult: one more thing done.` : `Scope: colour ${asked}.\nResult: colour ${asked} is fine.`);
    });
    const { sessionId } = await h.send('remember the colours');
    const forks = [];
    for (let n = 0; n < FORKS; n++) {
      forks.push(await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: directiveOf(n), forkTurns: 'all', isolation: 'shared' }));
    }
    const ended = await Promise.all(forks.map(f => sendRequest(h.client.endpoint, forkWait, { forkId: f.id })));
    assert.deepEqual(ended.map(f => f.state), Array(FORKS).fill('completed'));
    const before = await Promise.all(forks.map(async f => ({
      history: await sendRequest(h.client.endpoint, forkHistory, { forkId: f.id }),
      transcript: await h.transcript(f.id),
    })));

    await allEvicted(forks.map(f => f.id));

    for (const [n, fork] of forks.entries()) {
      // Read back from disk: the same events and entries as while it was in memory.
      assert.deepEqual(await sendRequest(h.client.endpoint, forkHistory, { forkId: fork.id }), before[n].history);
      assert.deepEqual((await h.transcript(fork.id)).entries, before[n].transcript.entries);
      assert.equal((await sendRequest(h.client.endpoint, forkAnnounce, { forkId: fork.id })).first, true);
      assert.equal((await sendRequest(h.client.endpoint, forkAnnounce, { forkId: fork.id })).first, false, 'announced once');
    }
    // Evicted again once idle; then continued: the request carries its own history and none of its siblings'.
    await allEvicted(forks.map(f => f.id), 1);
    const target = forks[2];
    const sent = new Promise<ReceivedRequest>(resolve => h.fake.onRequest(r => r.rawBody.includes('and one more thing') && resolve(r)));
    await sendRequest(h.client.endpoint, forkSend, { forkId: target.id, message: 'and one more thing' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: target.id });
    assert.equal(done.state, 'completed');
    assert.match(done.report ?? '', /one more thing done/);
    const request = await sent;
    assert.ok(request.rawBody.includes(directiveOf(2)) && request.rawBody.includes('colour 2 is fine'));
    for (const n of [0, 1, 3, 4, 5]) assert.ok(!request.rawBody.includes(directiveOf(n)), `no trace of sibling ${n}`);
    const after = await h.transcript(target.id);
    assert.deepEqual(after.entries.slice(0, before[2].transcript.entries.length), before[2].transcript.entries, 'its history, then the continuation');
    assert.deepEqual(after.entries.slice(before[2].transcript.entries.length).map(e => e.kind), ['prompt', 'response']);
    // The file holds exactly one copy: every entry id once.
    const ids = fs.readFileSync(path.join(h.storeDir, 'sessions', `${target.id}.jsonl`), 'utf8').trim().split('\n')
      .map(line => JSON.parse(line)).filter(r => r.type === 'entry').map(r => r.entry.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});
