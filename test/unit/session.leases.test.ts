// Idle eviction never splits a session in two. A session held across an await longer than the
// idle time stays the one instance every get() returns, and concurrent loads of an evicted session share one.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

const ID = 's-00000000-0000-4000-8000-0000000000aa';
const IDLE_MS = 1_000;

describe('session store: leases and idle eviction (docs/design.md §3, memory)', () => {
  let dir: string;
  let clock: number;
  let store: SessionStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-lease-'));
    clock = 0;
    store = new SessionStore(dir, { now: () => clock });
    store.create({ ...header(), id: ID }).commit('prompt', { role: 'user', content: [{ type: 'text', text: 'first' }] });
  });
  afterEach(() => {
    store.closeAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const lines = () => fs.readFileSync(store.fileOf(ID), 'utf8').trim().split('\n').length;

  it('keeps a held session through the idle time: get() returns the same instance, and appends stay in one file in order', async () => {
    const lease = await store.hold(ID);
    clock += 10 * IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [], 'held: not evicted');
    const again = await store.get(ID);
    assert.equal(again, lease.session, 'one instance while held');
    lease.session.commit('response', { role: 'assistant', content: [{ type: 'text', text: 'second' }] });
    again.commit('prompt', { role: 'user', content: [{ type: 'text', text: 'third' }] });
    lease.release();
    const reread = new SessionStore(dir);
    assert.deepEqual((await reread.get(ID)).entries().map(e => e.message.content[0].type === 'text' && e.message.content[0].text), ['first', 'second', 'third']);
    reread.closeAll();
  });

  it('evicts once the last lease is released and the idle time has passed since, then streams the session in again', async () => {
    const a = await store.hold(ID);
    const b = await store.hold(ID);
    a.release();
    a.release();
    clock += 10 * IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [], 'one lease is still held (a second release of the first one counts nothing)');
    b.release();
    assert.deepEqual(store.evictIdle(IDLE_MS), [], 'the idle time counts from the release');
    clock += IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [ID]);
    assert.equal(store.loaded(ID), undefined);
    const reloaded = await store.get(ID);
    assert.notEqual(reloaded, a.session);
    assert.equal(reloaded.entries().length, 1);
  });

  it('two concurrent get()s and a hold() of an evicted session share one load', async () => {
    clock += IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [ID]);
    const [x, y, lease] = await Promise.all([store.get(ID), store.get(ID), store.hold(ID)]);
    assert.equal(x, y);
    assert.equal(lease.session, x);
    clock += IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [], 'the hold taken during the load counts');
    x.commit('response', { role: 'assistant', content: [{ type: 'text', text: 'once' }] });
    assert.equal(lines(), 3, 'header, the first prompt, one response: no second copy wrote');
    lease.release();
  });

  it('using() releases its lease when the callback throws', async () => {
    await assert.rejects(store.using(ID, () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(store.isHeld(ID), false);
    clock += IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [ID]);
  });

  it('keeps what an evicted session spent readable without loading it; a session not read since start-up is read once', async () => {
    const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    (await store.get(ID)).commit('response', { role: 'assistant', content: [{ type: 'text', text: 'paid' }] }, { usage });
    const spent = store.spentOf(ID);
    assert.equal(spent?.input_tokens, 120);
    clock += IDLE_MS;
    assert.deepEqual(store.evictIdle(IDLE_MS), [ID]);
    assert.deepEqual(store.spentOf(ID), spent, 'kept through eviction, nothing loaded');
    assert.equal(store.loaded(ID), undefined);
    const fresh = new SessionStore(dir);
    assert.equal(fresh.spentOf(ID), undefined, 'not read since this store started');
    await fresh.readSpent(ID);
    assert.deepEqual(fresh.spentOf(ID), spent);
    fresh.closeAll();
    store.removeFile(ID);
    assert.equal(store.spentOf(ID), undefined, 'a deleted session spent nothing any more');
  });
});
