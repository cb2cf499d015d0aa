// Request records written as differences read back as the records that were recorded, files holding records
// in full (as older versions wrote them) still load, and a record whose base is not in memory is explained
// with the same counts — on fingerprints of real request bodies, through a real session store on disk.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { explain, explainRequests } from '../../src/runtime/cache/explorer';
import { fingerprint } from '../../src/runtime/cache/fingerprint';
import { resolveRequest, storedRequest } from '../../src/runtime/cache/storedRequest';
import type { MessagesRequestBody } from '../../src/runtime/model/wire';
import type { RequestRecord } from '../../src/runtime/session/records';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import type { Usage } from '../../src/common/transcript';
import { header } from './forkFixtures';

const ID = 's-00000000-0000-4000-8000-0000000000c1';
const bp = { type: 'ephemeral' as const };
const usage = (read: number): Usage => ({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: read, cache_creation_input_tokens: 50 });
const body = (texts: string[]): MessagesRequestBody => ({
  model: 'm', max_tokens: 100,
  system: [{ type: 'text', text: 'you are helpful', cache_control: bp }],
  tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
  messages: texts.map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text, ...(i === texts.length - 1 ? { cache_control: bp } : {}) }] })),
});
const at = (texts: string[], n: number) => fingerprint(body(texts), Date.parse('2026-12-02T10:00:00Z') + n * 1000, usage(n * 10), `e-${n}`);
/** A chat's requests: growing, then rewound (its third part differs), then growing again. */
const chat = (): RequestRecord[] => [
  at(['q0'], 0), at(['q0', 'a0', 'q1'], 1), at(['q0', 'a0', 'q1', 'a1', 'q2'], 2),
  at(['q0', 'a0', 'other'], 3), at(['q0', 'a0', 'other', 'a3', 'q4'], 4),
];
const requestLines = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map(line => JSON.parse(line)).filter(r => r.type === 'request');

describe('cache: request records stored as differences', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-stored-request-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes each record after the first as the blocks it adds to the previous, and reads back the records recorded', async () => {
    const store = new SessionStore(dir);
    const session = store.create({ ...header(), id: ID });
    const records = chat();
    for (const record of records) session.recordRequest(record);
    const steps = explainRequests(ID, session.requests());
    store.closeAll();
    const lines = requestLines(store.fileOf(ID));
    assert.ok(Array.isArray(lines[0].request.blocks), 'the first record is in full');
    assert.deepEqual(lines.slice(1).map(l => [l.request.extends, l.request.tail.length]), [
      [{ index: 0, keep: 3 }, 2], [{ index: 1, keep: 5 }, 2], [{ index: 2, keep: 4 }, 1], [{ index: 3, keep: 5 }, 2],
    ], 'kept blocks and the tail each record adds (tool, system, then messages)');
    const reread = await new SessionStore(dir).get(ID);
    assert.deepEqual(reread.requests(), records);
    assert.deepEqual(explainRequests(ID, reread.requests()), steps);
  });

  it('loads records written in full, as older files hold them, and extends them from then on', async () => {
    const records = chat();
    const file = path.join(dir, 'sessions', `${ID}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const old = [{ type: 'header', header: { ...header(), id: ID } }, ...records.slice(0, 3).map(request => ({ type: 'request', request }))];
    fs.writeFileSync(file, old.map(r => JSON.stringify(r)).join('\n') + '\n');
    const session = await new SessionStore(dir).get(ID);
    assert.deepEqual(session.requests(), records.slice(0, 3));
    session.recordRequest(records[3]);
    assert.deepEqual(requestLines(file).at(-1).request.extends, { index: 2, keep: 4 });
    assert.deepEqual((await new SessionStore(dir).get(ID)).requests(), records.slice(0, 4));
  });

  it('loads a session whose stored record makes no sense (hand-edited), reading it as keeping nothing', async () => {
    const file = path.join(dir, 'sessions', `${ID}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { blocks: _blocks, ...rest } = at(['q0'], 0);
    const lines = [{ type: 'header', header: { ...header(), id: ID } }, { type: 'request', request: { ...rest, extends: { index: 0, keep: -3 }, tail: ['x'] } },
      { type: 'request', request: { ...rest, extends: { index: 0, keep: 1e300 }, tail: 'y' } }];
    fs.writeFileSync(file, lines.map(r => JSON.stringify(r)).join('\n') + '\n');
    const session = await new SessionStore(dir).get(ID);
    assert.deepEqual(session.requests().map(r => r.blocks), [['x'], []]);
  });

  it('explains a record whose base is not in memory (another session\'s, not loaded) with the counts it had', () => {
    const [parent, first, second] = [at(['q0', 'a0', 'q1'], 0), at(['q0', 'a0', 'q1', 'a1', 'directive'], 1), at(['q0', 'a0', 'q1', 'a1', 'directive', 'a2', 'result'], 2)];
    const storedFirst = storedRequest(first, { sessionId: 's-parent', index: 0 }, explain(first, { record: parent, sessionId: 's-parent', index: 0 }).matchedBlocks);
    const storedSecond = storedRequest(second, { index: 0 }, 7);
    const unknownFirst = resolveRequest(storedFirst, () => undefined);
    const knownFirst = resolveRequest(storedFirst, () => parent);
    assert.deepEqual(knownFirst, first, 'resolved against the parent: the record as recorded');
    assert.equal(unknownFirst.blocks.length, first.blocks.length);
    const secondRead = resolveRequest(storedSecond, () => unknownFirst);
    assert.deepEqual(explain(secondRead, { record: unknownFirst, sessionId: 'f', index: 0 }), explain(second, { record: first, sessionId: 'f', index: 0 }));
  });
});
