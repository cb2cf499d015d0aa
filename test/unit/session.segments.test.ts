// A chat seals its history into content-addressed segments as it commits; a selection is named by
// chain ranges plus a bounded tail, and reading those back gives the same entries — after rewinds too.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Entry } from '../../src/common/transcript';
import type { HistoryPart } from '../../src/runtime/session/records';
import { Picked } from '../../src/runtime/session/picked';
import { SEAL_BYTES, SEAL_ENTRIES } from '../../src/runtime/session/sealedChain';
import { SegmentError } from '../../src/runtime/session/segments';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

describe('session: sealed segments (docs/design.md §3)', function () {
  // Hundreds of commits, each flushed to disk: seconds on a loaded machine (not a speed check).
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-seg-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const say = (session: ReturnType<SessionStore['create']>, n: number, size = 10) =>
    session.commit(n % 2 ? 'response' : 'prompt', { role: n % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `${n} ${'x'.repeat(size)}` }] });

  /** Read back by a fresh store, as a revived fork does: from the owner's transcript (v2) or segment files (v1). */
  async function resolve(store: SessionStore, refs: { head: string | null; parts: HistoryPart[] }, owner: string): Promise<Entry[]> {
    const ranges = refs.parts.filter((p): p is { from: number; to: number } => !('entries' in p));
    const resolved = refs.head ? await new SessionStore(store.storeDir).segments.resolve(refs.head, ranges, owner) : [];
    let next = 0;
    return refs.parts.flatMap(p => ('entries' in p ? p.entries : resolved[next++]));
  }

  it('keeps the unsealed tail under its bounds and names any selection by ranges that read back as the same entries', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-000000000001' });
    for (let n = 0; n < 3 * SEAL_ENTRIES + 5; n++) say(session, n, n % 50 === 0 ? SEAL_BYTES : 10);
    const refs = session.historyRefs(session.entries())!;
    const inline = refs.parts.flatMap(p => ('entries' in p ? p.entries : []));
    assert.ok(inline.length < SEAL_ENTRIES && JSON.stringify(inline).length < SEAL_BYTES, 'a bounded tail');
    assert.deepEqual((await resolve(store, refs, session.id)).map(e => e.id), session.entries().map(e => e.id));
    // Sealed as byte ranges of the transcript: no segment file holds a second copy.
    assert.deepEqual(store.segments.list(), [], 'no segment files');
    const window = [session.entries()[0], ...session.entries().slice(100)];
    assert.deepEqual((await resolve(store, session.historyRefs(window)!, session.id)).map(e => e.id), window.map(e => e.id));
  });

  it('after a rewind the chain is kept and continued: old and new selections both read back', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-000000000002' });
    for (let n = 0; n < 2 * SEAL_ENTRIES; n++) say(session, n);
    const before = session.entries().slice();
    const beforeRefs = session.historyRefs(before)!;
    assert.ok(session.rewindTo(before[20].id));
    for (let n = 0; n < 2 * SEAL_ENTRIES; n++) say(session, 1000 + n);
    const after = session.entries().slice();
    assert.deepEqual((await resolve(store, session.historyRefs(after)!, session.id)).map(e => e.id), after.map(e => e.id));
    assert.deepEqual((await resolve(store, beforeRefs, session.id)).map(e => e.id), before.map(e => e.id), 'what an earlier fork named is unchanged');
  });

  it('a selection named by spans of the history gets the same refs as the same entries listed one by one', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-000000000004' });
    const check = async (spans: { from: number; to: number }[], what: string) => {
      const picked = new Picked(session.history(), spans);
      const bySpans = session.historyRefs(picked)!;
      assert.deepEqual(bySpans, session.historyRefs(picked.toArray()), what);
      assert.deepEqual((await resolve(store, bySpans, session.id)).map(e => e.id), picked.toArray().map(e => e.id), what);
    };
    for (let n = 0; n < 3 * SEAL_ENTRIES + 7; n++) say(session, n);
    const whole = () => ({ from: 0, to: session.history().length });
    await check([whole()], 'all');
    await check([{ from: 0, to: 1 }, { from: 2 * SEAL_ENTRIES - 3, to: session.history().length }], 'startup + a window across a segment boundary');
    // Rewinds into sealed history, then more commits: the view maps onto the chain in several runs.
    assert.ok(session.rewindTo(session.history()[SEAL_ENTRIES + 10].id));
    for (let n = 0; n < SEAL_ENTRIES + 3; n++) say(session, 2000 + n);
    assert.ok(session.rewindTo(session.history()[SEAL_ENTRIES - 1].id));
    for (let n = 0; n < 2 * SEAL_ENTRIES; n++) say(session, 3000 + n);
    await check([whole()], 'all, after two rewinds');
    await check([{ from: 0, to: 1 }, { from: SEAL_ENTRIES - 5, to: session.history().length - 2 }], 'a window across the rewind points');
    await check([], 'nothing');
  });

  it('a record written to the file around the session makes the next seal a copy, never a range naming the wrong bytes', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-000000000005' });
    for (let n = 0; n < SEAL_ENTRIES - 5; n++) say(session, n);
    fs.appendFileSync(store.fileOf(session.id), JSON.stringify({ type: 'spend', usage: {}, time: 'now', why: 'written around it' }) + '\n');
    for (let n = 0; n < 10; n++) say(session, 100 + n);
    assert.ok(store.segments.list().length > 0, 'sealed as a copy');
    const refs = session.historyRefs(session.entries())!;
    assert.deepEqual((await resolve(store, refs, session.id)).map(e => e.id), session.entries().map(e => e.id));
  });

  it('a damaged segment is refused with its name', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: 's-00000000-0000-4000-8000-000000000003' });
    for (let n = 0; n < SEAL_ENTRIES; n++) say(session, n);
    const refs = session.historyRefs(session.entries())!;
    // The segment is a byte range of the transcript: one byte changed there, the length kept.
    const file = store.fileOf(session.id);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"0 ', '"O '));
    await assert.rejects(resolve(store, refs, session.id), (error: Error) => error instanceof SegmentError && error.message.includes(`segment ${refs.head} is damaged`));
  });
});
