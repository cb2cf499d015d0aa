// A fork's bootstrap names the parent's committed entries by id (the parent's transcript is append-only),
// so a fork of a long session is small on disk; loading resolves the ids, sharing the parent's objects.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Entry } from '../../src/common/transcript';
import { createForkSession } from '../../src/runtime/fork/createFork';
import type { ForkSpec } from '../../src/runtime/fork/createFork';
import type { Session } from '../../src/runtime/session/session';
import type { SessionRecord } from '../../src/runtime/session/records';
import { ForkLoadError, SessionStore } from '../../src/runtime/session/sessionStore';
import { header, richParent } from './forkFixtures';

describe('fork: bootstrap by reference', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-bootstrap-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A parent written to disk entry by entry, as the loop commits them. */
  function parentOnDisk(store: SessionStore): Session {
    const parent = store.create({ ...header(), id: `s-${randomUUID()}` });
    for (const entry of richParent().entries) parent.commit(entry.kind, entry.message, { usage: entry.usage, stopReason: entry.stopReason });
    return parent;
  }
  const spec = (parent: Session, extra: Partial<ForkSpec> = {}): ForkSpec =>
    ({ parent, kind: 'fork', directive: 'Check parse().', turns: 'all', isolation: 'shared', origin: 'user', name: 'check', ...extra });
  const recordsOf = (store: SessionStore, id: string): SessionRecord[] =>
    fs.readFileSync(store.fileOf(id), 'utf8').trim().split('\n').map(line => JSON.parse(line) as SessionRecord);
  const inheritedOf = (fork: Session): readonly Entry[] => fork.entries().slice(0, fork.bootstrap!.inheritedCount);

  it('writes ids, not entries, and a new runtime gets the same history back, sharing the open parent\'s entries', () => {
    const store = new SessionStore(dir);
    const parent = parentOnDisk(store);
    const fork = createForkSession(store, spec(parent));
    const bootstrap = recordsOf(store, fork.id).find(r => r.type === 'bootstrap')!;
    assert.ok(bootstrap.type === 'bootstrap');
    assert.equal(bootstrap.bootstrap.inherited, undefined);
    assert.deepEqual(bootstrap.bootstrap.inheritedIds, parent.entries().map(e => e.id));
    const file = fs.readFileSync(store.fileOf(fork.id), 'utf8');
    for (const entry of parent.entries()) assert.ok(!file.includes(JSON.stringify(entry.message)), `entry ${entry.id} is not repeated`);
    const expected = JSON.stringify(fork.entries());
    store.closeAll();

    const reloaded = new SessionStore(dir);
    const parentAgain = reloaded.get(parent.id);
    const forkAgain = reloaded.get(fork.id);
    assert.equal(JSON.stringify(forkAgain.entries()), expected);
    inheritedOf(forkAgain).forEach((entry, i) => assert.equal(entry, parentAgain.entries()[i], 'the parent\'s own object'));
    reloaded.closeAll();
  });

  it('still loads after the parent rewound past what the fork inherited (rewound entries stay on disk)', () => {
    const store = new SessionStore(dir);
    const parent = parentOnDisk(store);
    const fork = createForkSession(store, spec(parent));
    const expected = JSON.stringify(fork.entries());
    assert.ok(parent.rewindTo(parent.entries()[2].id));
    store.closeAll();
    const reloaded = new SessionStore(dir);
    assert.equal(reloaded.get(parent.id).entries().length, 3);
    assert.equal(JSON.stringify(reloaded.get(fork.id).entries()), expected);
    reloaded.closeAll();
  });

  it('says which transcript is missing when the parent\'s file is gone', () => {
    const store = new SessionStore(dir);
    const parent = parentOnDisk(store);
    const fork = createForkSession(store, spec(parent, { turns: 1 }));
    store.closeAll();
    fs.rmSync(store.fileOf(parent.id));
    const reloaded = new SessionStore(dir);
    assert.throws(() => reloaded.get(fork.id), (error: Error) =>
      error instanceof ForkLoadError && error.message.includes(fork.id) && error.message.includes(`${parent.id}.jsonl`));
    reloaded.closeAll();
  });

  it('loads an older fork file that holds its inherited entries whole', () => {
    const store = new SessionStore(dir);
    const parent = parentOnDisk(store);
    const fork = createForkSession(store, spec(parent));
    const expected = JSON.stringify(fork.entries());
    store.closeAll();
    // Rewrite the bootstrap as files written before ids were: the entries themselves.
    const records = recordsOf(store, fork.id).map(record => (record.type === 'bootstrap'
      ? { type: 'bootstrap', bootstrap: { ...record.bootstrap, inheritedIds: undefined, inherited: JSON.parse(expected).slice(0, -1) } }
      : record));
    fs.writeFileSync(store.fileOf(fork.id), records.map(r => JSON.stringify(r)).join('\n') + '\n');
    fs.rmSync(store.fileOf(parent.id));
    const reloaded = new SessionStore(dir);
    assert.equal(JSON.stringify(reloaded.get(fork.id).entries()), expected, 'self-contained: no parent needed');
    reloaded.closeAll();
  });
});
