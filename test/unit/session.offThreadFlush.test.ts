// A fork's bootstrap is created, written and flushed on the thread pool, its folder entry too: what the store promises about it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FolderSync, writeThenFlushOffThread } from '../../src/runtime/session/offThreadFlush';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

describe('session store: bootstrap flushed off the thread', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'off-thread-flush-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the file private with its bytes once it settles, and refuses an existing file without touching it', async () => {
    const file = path.join(dir, 'a.jsonl');
    const folder = new FolderSync(dir);
    await writeThenFlushOffThread(file, Buffer.from('{"x":1}\n'), folder);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":1}\n');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    await assert.rejects(writeThenFlushOffThread(file, Buffer.from('again\n'), folder), (error: NodeJS.ErrnoException & { created?: boolean }) => error.code === 'EEXIST' && error.created === false);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":1}\n');
  });

  it('shares one folder fsync among the callers that arrive while one runs, and fails them on a folder that is gone', async () => {
    const folder = new FolderSync(dir);
    const first = folder.sync();
    const [second, third] = [folder.sync(), folder.sync()];
    // The ones that came while the first ran wait for the next fsync, together.
    assert.equal(second, third);
    assert.notEqual(first, second);
    await Promise.all([first, second]);
    const gone = new FolderSync(path.join(dir, 'missing'));
    await assert.rejects(gone.sync(), /ENOENT/);
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

  it('with createFileAfter the file waits for it, the session is listed meanwhile, and one deleted meanwhile never gets a file', async () => {
    const store = new SessionStore(dir);
    let begin!: () => void;
    const after = new Promise<void>(resolve => (begin = resolve));
    const parent = { ...header(), id: SessionStore.newSessionId() };
    store.create(parent);
    const make = (id: string) => store.create({ ...parent, id, parent: { sessionId: parent.id } }, [], { flushOffThread: true, createFileAfter: after });
    const [kept, deleted] = [make(`f-${SessionStore.newSessionId().slice(2)}`), make(`f-${SessionStore.newSessionId().slice(2)}`)];
    await store.started(kept.id);
    // Its start is in the journal; its own file is not made yet, and the store still lists it (its parent is referenced).
    assert.equal(fs.existsSync(store.fileOf(kept.id)), false);
    assert.ok(store.ids().includes(kept.id) && store.ids().includes(deleted.id));
    assert.ok(store.listHeaders().some(h => h.id === kept.id && h.parent?.sessionId === parent.id));
    store.removeFile(deleted.id);
    assert.equal(store.ids().includes(deleted.id), false);
    begin();
    await Promise.all([store.durable(kept.id), store.durable(deleted.id)]);
    assert.equal(fs.existsSync(store.fileOf(kept.id)), true);
    assert.equal(fs.existsSync(store.fileOf(deleted.id)), false, 'no file appears after the delete');
    assert.deepEqual(new SessionStore(dir).ids().sort(), [parent.id, kept.id].sort());
    store.drop(kept.id);
  });
});
