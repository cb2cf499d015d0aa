// A fork's bootstrap is written at once and flushed on the thread pool: what the store promises about it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeThenFlushOffThread } from '../../src/runtime/session/offThreadFlush';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

describe('session store: bootstrap flushed off the thread', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'off-thread-flush-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has the bytes in the file before the flush settles, private, and refuses an existing file at once', async () => {
    const file = path.join(dir, 'a.jsonl');
    const flushed = writeThenFlushOffThread(file, Buffer.from('{"x":1}\n'));
    // Readable before the flush has settled: the write itself was synchronous.
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":1}\n');
    await flushed;
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.throws(() => writeThenFlushOffThread(file, Buffer.from('again\n')), /EEXIST/);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":1}\n');
  });

  it('store.create with flushOffThread gives the session now and durable() settles once it is on disk; a reload sees it', async () => {
    const store = new SessionStore(dir);
    const h = { ...header(), id: SessionStore.newSessionId() };
    const session = store.create(h, [], { flushOffThread: true });
    assert.equal(session.id, h.id);
    const durable = store.durable(h.id);
    let settled = false;
    void durable.then(() => (settled = true));
    // Not settled in the same tick: the flush runs on the thread pool.
    assert.equal(settled, false);
    await durable;
    const reloaded = new SessionStore(dir);
    assert.equal(reloaded.ids().includes(h.id), true);
    // A session made the usual way is durable already.
    await store.durable('s-none');
    session.close();
  });
});
