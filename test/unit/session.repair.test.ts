// The `repair` record (fork-agents doctor --repair): what loading mended in memory, written after the damage.
// Later loads give the same history without mending again; seals written after it are trusted again; a
// record whose kept prefix does not match the history is ignored (loading mends in memory as before).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Session } from '../../src/runtime/session/session';
import { SEAL_ENTRIES } from '../../src/runtime/session/sealedChain';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { LOST_RESULT } from '../../src/runtime/session/damage';
import { header } from './forkFixtures';

const ID = 's-00000000-0000-4000-8000-0000000000aa';

describe('session: the repair record', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-repair-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const file = () => path.join(dir, 'sessions', `${ID}.jsonl`);
  const chat = (session: Session, n: number) => {
    session.commit('prompt', { role: 'user', content: [{ type: 'text', text: `ask ${n}` }] });
    session.commit('response', { role: 'assistant', content: [{ type: 'text', text: `answer ${n}` }] });
  };
  /** A session with a tool exchange after some sealed history; its tool_results line is then damaged. */
  const damagedSession = (): number => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: ID });
    for (let n = 0; n < SEAL_ENTRIES / 2 + 1; n++) chat(session, n);
    session.commit('prompt', { role: 'user', content: [{ type: 'text', text: 'read it' }] });
    session.commit('response', { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }] });
    session.commit('tool_results', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'the content' }] });
    session.commit('response', { role: 'assistant', content: [{ type: 'text', text: 'read' }] });
    store.closeAll();
    const lines = fs.readFileSync(file(), 'utf8').split('\n');
    const index = lines.findIndex(line => line.includes('"kind":"tool_results"'));
    lines[index] = lines[index].slice(0, 100) + '{{garbage';
    fs.writeFileSync(file(), lines.join('\n'));
    return index + 1;
  };
  const load = async () => {
    const store = new SessionStore(dir);
    return { store, session: await store.get(ID) };
  };
  const ids = (session: Session) => session.history().map(e => e.id);

  it('after a repair, loading gives the mended history with nothing left to mend, and later seals are trusted', async () => {
    const line = damagedSession();
    const first = await load();
    assert.equal(first.session.damage.length, 1);
    assert.ok(first.session.damage[0].closed, 'the exchange was closed in memory');
    const mended = ids(first.session);
    assert.deepEqual(first.session.repairDamage(), [line]);
    // More history after the repair, enough to seal again.
    for (let n = 0; n < SEAL_ENTRIES; n++) chat(first.session, 100 + n);
    const expected = ids(first.session);
    first.store.closeAll();

    const again = await load();
    assert.deepEqual(ids(again.session), expected, 'the same history, read from the file');
    assert.deepEqual(ids(again.session).slice(0, mended.length), mended);
    assert.equal(again.session.damage.length, 1);
    assert.ok(again.session.damage[0].repaired, 'the line is known as repaired');
    assert.equal(again.session.damage[0].closed, undefined, 'nothing was closed again in memory');
    const closedResult = again.session.history().flatMap(e => e.message.content).find(b => b.type === 'tool_result');
    assert.equal(closedResult?.type === 'tool_result' && closedResult.content, LOST_RESULT(line));
    // The history a fork would name reads back from the segments sealed after the repair.
    const refs = again.session.historyRefs(again.session.entries())!;
    assert.ok(refs.parts.some(p => !('entries' in p)), 'sealed ranges after the repair');
  });

  it('a repair record whose kept prefix is not the history is ignored: the damage is mended in memory as before', async () => {
    const line = damagedSession();
    const forged = { type: 'repair', lines: [line], keep: 2, keepLastId: 'e-not-this-one', entries: [], time: new Date().toISOString() };
    fs.appendFileSync(file(), JSON.stringify(forged) + '\n');
    const { session } = await load();
    assert.equal(session.damage[0].repaired, undefined);
    assert.ok(session.damage[0].closed, 'closed in memory, as without the record');
    assert.ok(session.history().length > 2, 'the history was not cut to the forged prefix');
  });
});
