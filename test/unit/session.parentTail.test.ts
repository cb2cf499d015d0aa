// A chat that is not loaded is forked from its transcript's tail (session/parentTail.ts, fork/history/tailParent.ts):
// the tail names the same history the loaded chat would, and anything the tail alone cannot vouch for sends
// the fork down the ordinary path (undefined) — a torn or damaged line, a rewind, a compaction, a store
// written before seal records said so, a chat too short to have sealed.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Entry } from '../../src/common/transcript';
import { TailParent } from '../../src/runtime/fork/history/tailParent';
import { createForkSession } from '../../src/runtime/fork/history/createFork';
import type { HistoryPart, SessionRecord } from '../../src/runtime/session/records';
import { SEAL_ENTRIES } from '../../src/runtime/session/sealedChain';
import { SegmentError } from '../../src/runtime/session/segments';
import type { Session } from '../../src/runtime/session/session';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

describe('session: forking a chat from its transcript\'s tail', function () {
  // Hundreds of commits, each flushed to disk: seconds on a loaded machine (not a speed check).
  this.timeout(20_000);
  let dir: string;
  let serial = 0;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-tail-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const say = (session: Session, n: number) =>
    session.commit(n % 2 ? 'response' : 'prompt', { role: n % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `${n} ${'x'.repeat(40)}` }] });

  /** A chat of `count` entries written and closed, as a runtime that stopped leaves it. */
  async function chat(count: number, before?: (session: Session) => void): Promise<{ store: SessionStore; id: string; entries: readonly Entry[] }> {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: `s-00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}` });
    before?.(session);
    for (let n = 0; n < count; n++) say(session, n);
    const entries = session.entries().slice();
    await session.durable();
    store.drop(session.id);
    return { store: new SessionStore(dir), id: session.id, entries };
  }

  async function resolve(store: SessionStore, refs: { head: string | null; parts: HistoryPart[] }, owner: string): Promise<string[]> {
    const ranges = refs.parts.filter((p): p is { from: number; to: number } => !('entries' in p));
    const resolved = refs.head ? await new SessionStore(store.storeDir).segments.resolve(refs.head, ranges, owner) : [];
    let next = 0;
    return refs.parts.flatMap(p => ('entries' in p ? p.entries : resolved[next++])).map(e => e.id);
  }

  it('names the whole history by the chain and the unsealed entries, as the loaded chat does, and fills it in', async () => {
    const { store, id, entries } = await chat(3 * SEAL_ENTRIES + 7);
    const tail = TailParent.open(store, id);
    assert.ok(tail, 'the tail is trusted');
    const snapshot = tail.snapshot();
    assert.equal(snapshot.length, entries.length);
    const refs = tail.historyRefs({ length: entries.length } as readonly Entry[]);
    const loaded = await new SessionStore(dir).get(id);
    assert.deepEqual(refs, loaded.historyRefs(loaded.entries()), 'the same refs as the loaded chat names');
    assert.deepEqual(await resolve(store, refs, id), entries.map(e => e.id));
    await tail.fill(store);
    assert.deepEqual(tail.history().map(e => e.id), entries.map(e => e.id), 'filled');
  });

  it('a fork made from the tail writes a bootstrap the ordinary path would, and its history is readable once filled', async () => {
    // Ends with an answer: the fork inherits everything (a trailing unanswered prompt would be left out).
    const { store, id, entries } = await chat(2 * SEAL_ENTRIES + 4);
    const tail = TailParent.open(store, id)!;
    const fork = createForkSession(store, { parent: tail, kind: 'fork', directive: 'Check it.', turns: 'all', isolation: 'shared', origin: 'user', name: 'tail' });
    await store.durable(fork.id);
    await fork.inheritedReady();
    assert.equal(fork.unavailable, undefined);
    assert.deepEqual(fork.entries().slice(0, -1).map(e => e.id), entries.map(e => e.id));
    // Read back by a fresh store, as after a restart.
    const revived = await new SessionStore(dir).get(fork.id);
    assert.equal(revived.unavailable, undefined);
    assert.deepEqual(revived.entries().map(e => e.id), fork.entries().map(e => e.id));
    assert.equal(revived.bootstrap!.parentRequestEnd, fork.bootstrap!.parentRequestEnd);
    assert.equal(fork.bootstrap!.parentRequestEnd, entries.length - 2, 'the parent\'s latest request ended at its last prompt');
  });

  it('carries the chat\'s approval mode, recorded long before the tail', async () => {
    const { store, id } = await chat(2 * SEAL_ENTRIES + 3, session => session.recordApprovalMode('auto-edit'));
    assert.equal(TailParent.open(store, id)!.approvalMode, 'auto-edit');
  });

  const file = (store: SessionStore, id: string) => store.fileOf(id);
  const append = (store: SessionStore, id: string, text: string) => fs.appendFileSync(file(store, id), text);

  it('refuses a torn last line (a crash mid-append): the ordinary load cuts it', async () => {
    const { store, id } = await chat(2 * SEAL_ENTRIES + 3);
    append(store, id, '{"type":"entry","entry":{"id":"e-torn');
    assert.equal(TailParent.open(store, id), undefined);
    const loaded = await store.get(id);
    assert.equal(loaded.tornBytes > 0, true, 'the load cut it');
    assert.ok(TailParent.open(new SessionStore(dir), id), 'once cut, the tail is trusted again');
  });

  it('refuses a damaged line after the last seal, a rewind and a repair', async () => {
    const damaged = await chat(2 * SEAL_ENTRIES + 3);
    append(damaged.store, damaged.id, '{"type":"entry","entry":\u0000\u0000\n');
    assert.equal(TailParent.open(damaged.store, damaged.id), undefined, 'damaged');
    const rewound = await chat(2 * SEAL_ENTRIES + 3);
    const record: SessionRecord = { type: 'rewind', toEntryId: rewound.entries[10].id, time: new Date().toISOString() };
    append(rewound.store, rewound.id, JSON.stringify(record) + '\n');
    assert.equal(TailParent.open(rewound.store, rewound.id), undefined, 'rewound');
    // fork-agents doctor --repair writes its mending as a record after the damage: the loaded chat applies it.
    const repaired = await chat(2 * SEAL_ENTRIES + 3);
    const repair: SessionRecord = { type: 'repair', lines: [3], keep: 2, keepLastId: repaired.entries[1].id, entries: [], time: new Date().toISOString() };
    append(repaired.store, repaired.id, JSON.stringify(repair) + '\n');
    assert.equal(TailParent.open(repaired.store, repaired.id), undefined, 'repaired');
  });

  it('refuses a chat rewound into sealed history and continued: its later seals no longer say prefix', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-00000000aaaa' });
    for (let n = 0; n < 2 * SEAL_ENTRIES; n++) say(session, n);
    assert.ok(session.rewindTo(session.entries()[5].id));
    for (let n = 0; n < 3 * SEAL_ENTRIES; n++) say(session, 1000 + n);
    await session.durable();
    store.drop(session.id);
    assert.equal(TailParent.open(new SessionStore(dir), session.id), undefined);
  });

  it('refuses a compacted chat, a store written before seals said prefix, and a chat with nothing sealed', async () => {
    const compacted = await chat(SEAL_ENTRIES + 3, session => session.commit('summary', { role: 'user', content: [{ type: 'text', text: 'Summary.' }] }));
    assert.equal(TailParent.open(compacted.store, compacted.id), undefined, 'compacted');
    const older = await chat(2 * SEAL_ENTRIES + 3);
    const lines = fs.readFileSync(file(older.store, older.id), 'utf8').replace(/,"prefix":\{[^}]*\}/g, '');
    fs.writeFileSync(file(older.store, older.id), lines);
    assert.equal(TailParent.open(older.store, older.id), undefined, 'older store');
    const short = await chat(SEAL_ENTRIES - 10);
    assert.equal(TailParent.open(short.store, short.id), undefined, 'nothing sealed');
  });

  it('a damaged line inside sealed history: filling reads the named bytes and says which segment is damaged', async () => {
    const { store, id, entries } = await chat(3 * SEAL_ENTRIES + 3);
    const tail = TailParent.open(store, id)!;
    // An early entry's line no longer parses (a disk's damage): the chat loads mended, its segment no longer hashes.
    const bytes = fs.readFileSync(file(store, id));
    const at = bytes.indexOf(`"${entries[3].id}"`);
    bytes.fill(0, at, at + 8);
    fs.writeFileSync(file(store, id), bytes);
    await assert.rejects(tail.fill(new SessionStore(dir)), SegmentError);
  });
});
