// The start journal (startJournal.ts): fork starts of one moment flushed together, their frames retired
// once each fork's own file is durable, and a store's crashed starts written back from it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StartJournal, readFrames, recoverStarts } from '../../src/runtime/session/startJournal';
import { START_JOURNAL, SessionStore } from '../../src/runtime/session/sessionStore';
import { headerLine } from '../../src/runtime/session/headerBytes';
import type { SessionHeader } from '../../src/common/transcript';
import { header } from './forkFixtures';

const bytesOf = (text: string) => Buffer.from(text, 'utf8');
const id = (n: number) => `f-0000000${n}-aaaa-bbbb-cccc-dddddddddddd`;

describe('session start journal', () => {
  let dir: string;
  let sessions: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-journal-'));
    sessions = path.join(dir, 'sessions');
    fs.mkdirSync(sessions);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps each frame whole and in order, and empties itself once every frame is retired or dropped', async () => {
    const file = path.join(dir, START_JOURNAL);
    const journal = new StartJournal(file);
    const texts = [1, 2, 3].map(n => `{"type":"header","n":${n}}\n{"type":"bootstrap","ü":"${'x'.repeat(n * 1000)}"}\n`);
    await Promise.all(texts.map((text, i) => journal.add(id(i + 1), bytesOf(text)).flushed));
    const frames = readFrames(fs.readFileSync(file));
    assert.deepEqual(frames.map(f => f.id), [id(1), id(2), id(3)]);
    assert.deepEqual(frames.map(f => f.bytes!.toString('utf8')), texts);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    journal.retire(id(1));
    journal.retire(id(2));
    // One frame is still needed: nothing is emptied.
    await journal.drop('f-unknown');
    assert.equal(readFrames(fs.readFileSync(file)).length, 3);
    await journal.drop(id(3));
    // The drop frame went after the others, then (nothing live) the file is emptied.
    await journal.whenIdle();
    assert.equal(fs.statSync(file).size, 0);
    journal.close();
  });

  it('stops reading at a torn frame', () => {
    const whole = Buffer.concat([bytesOf(`{"start":"${id(1)}","bytes":3}\nabc`), bytesOf(`{"start":"${id(2)}","bytes":10}\nabc`)]);
    assert.deepEqual(readFrames(whole).map(f => f.id), [id(1)]);
    assert.deepEqual(readFrames(bytesOf(`{"start":"${id(1)}","bytes":3}\nabc{"sta`)).map(f => f.id), [id(1)]);
  });

  it('writes back the fork files a crash lost or tore, keeps whole and longer ones, skips dropped forks, and empties the journal', () => {
    const file = path.join(dir, START_JOURNAL);
    const frame = (fork: string, text: string) => Buffer.concat([bytesOf(`{"start":"${fork}","bytes":${Buffer.byteLength(text)}}\n`), bytesOf(text)]);
    const text = (n: number) => `{"type":"header","id":"${id(n)}"}\n{"type":"bootstrap"}\n`;
    fs.writeFileSync(file, Buffer.concat([
      frame(id(1), text(1)), frame(id(2), text(2)), frame(id(3), text(3)), frame(id(4), text(4)), frame(id(5), text(5)),
      bytesOf(`{"drop":"${id(5)}"}\n`),
    ]));
    const at = (n: number) => path.join(sessions, `${id(n)}.jsonl`);
    // 1 missing; 2 torn; 3 whole and run on; 4 someone else's bytes.
    fs.writeFileSync(at(2), text(2).slice(0, 10));
    fs.writeFileSync(at(3), text(3) + '{"type":"status"}\n');
    fs.writeFileSync(at(4), 'other\n');
    const result = recoverStarts(file, sessions);
    assert.deepEqual(result.written.sort(), [id(1), id(2)]);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0], /differs/);
    assert.equal(fs.readFileSync(at(1), 'utf8'), text(1));
    assert.equal(fs.readFileSync(at(2), 'utf8'), text(2));
    assert.equal(fs.statSync(at(1)).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(at(3), 'utf8'), text(3) + '{"type":"status"}\n');
    assert.equal(fs.readFileSync(at(4), 'utf8'), 'other\n');
    assert.equal(fs.existsSync(at(5)), false);
    assert.equal(fs.statSync(file).size, 0);
    // Nothing to do without a journal.
    assert.deepEqual(recoverStarts(path.join(dir, 'none'), sessions), { written: [], problems: [] });
  });

  it('never empties frames it found when it opened (no recovery ran): they wait for the runtime that recovers', async () => {
    const file = path.join(dir, START_JOURNAL);
    const old = Buffer.concat([bytesOf(`{"start":"${id(1)}","bytes":2}\n`), bytesOf('{}')]);
    fs.writeFileSync(file, old);
    const journal = new StartJournal(file);
    await journal.add(id(2), bytesOf('{"n":2}\n')).flushed;
    journal.retire(id(2));
    await journal.add(id(3), bytesOf('{"n":3}\n')).flushed;
    journal.retire(id(3));
    await journal.whenIdle();
    assert.deepEqual(readFrames(fs.readFileSync(file)).map(f => f.id), [id(1), id(2), id(3)]);
    journal.close();
  });

  it('says a frame is written before its flush; frames written while a flush is held share the next one', async () => {
    const file = path.join(dir, START_JOURNAL);
    const journal = new StartJournal(file);
    // Each flush waits for the test's release; nextFlush() resolves with that release once a flush waits.
    const held: (() => void)[] = [];
    const askers: ((release: () => void) => void)[] = [];
    journal.beforeFlush = () => new Promise<void>(resolve => (askers.length > 0 ? askers.shift()!(resolve) : held.push(resolve)));
    const nextFlush = () => new Promise<() => void>(resolve => (held.length > 0 ? resolve(held.shift()!) : askers.push(resolve)));
    const flushedYet = new Set<string>();
    const first = journal.add(id(1), bytesOf('{"n":1}\n'));
    void first.flushed.then(() => flushedYet.add('first'));
    await first.written;
    // Written, in the file for any reader (a crash of this process keeps it), while its flush is held.
    assert.deepEqual(readFrames(fs.readFileSync(file)).map(f => f.id), [id(1)]);
    const releaseFirst = await nextFlush();
    const second = journal.add(id(2), bytesOf('{"n":2}\n'));
    void second.flushed.then(() => flushedYet.add('second'));
    await second.written;
    assert.deepEqual(readFrames(fs.readFileSync(file)).map(f => f.id), [id(1), id(2)]);
    assert.equal(held.length, 0, 'one flush at a time: the second frame waits for the next');
    assert.deepEqual([...flushedYet], []);
    releaseFirst();
    await first.flushed;
    // The frame written while the first flush was held gets the next flush.
    const releaseSecond = await nextFlush();
    assert.deepEqual([...flushedYet], ['first']);
    releaseSecond();
    await second.flushed;
    journal.close();
  });

  it('a failed flush fails the frames it held and every later start, and keeps what was written', async () => {
    const file = path.join(dir, START_JOURNAL);
    const journal = new StartJournal(file);
    journal.beforeFlush = () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const first = journal.add(id(1), bytesOf('{"n":1}\n'));
    await first.written;
    await assert.rejects(first.flushed, /EIO/);
    const later = journal.add(id(2), bytesOf('{"n":2}\n'));
    await assert.rejects(later.written, /EIO/);
    await assert.rejects(later.flushed, /EIO/);
    // The frame stays for the next runtime's recovery (the drop frame a failed journal refuses is not written).
    assert.deepEqual(readFrames(fs.readFileSync(file)).map(f => f.id), [id(1)]);
    journal.close();
  });

  it('store.create of a fork: started once journaled, durable only after the held flush, appends kept until its file is made; a failed flush keeps the session and says why', async () => {
    const store = new SessionStore(dir);
    let release!: () => void;
    store.starts.beforeFlush = () => new Promise<void>(resolve => (release = resolve));
    const h = { ...header(), id: id(8), parent: { sessionId: 's-parent' } };
    const session = store.create(h, [], { flushOffThread: true });
    let durable = false;
    void store.durable(h.id).then(() => (durable = true));
    await store.started(h.id);
    // Started: its bytes are written in the journal (the fork's own file may still be being made).
    assert.deepEqual(readFrames(fs.readFileSync(path.join(dir, START_JOURNAL))).map(f => f.id), [h.id]);
    assert.equal(durable, false, 'not durable while its flush is held');
    // A record appended before its file is made (a cancel at once) goes in after the start's bytes.
    session.writeStatus({ state: 'cancelled', time: new Date(0).toISOString() });
    release();
    await store.durable(h.id);
    await session.durable();
    const lines = fs.readFileSync(store.fileOf(h.id), 'utf8').trim().split('\n').map(line => JSON.parse(line) as { type: string });
    assert.deepEqual(lines.map(l => l.type), ['header', 'status']);

    store.starts.beforeFlush = () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const failing = { ...header(), id: id(9), parent: { sessionId: 's-parent' } };
    store.create(failing, [], { flushOffThread: true });
    await store.started(failing.id);
    await assert.rejects(store.durable(failing.id), /could not be flushed to disk .*EIO.*nothing was sent for it/);
    assert.ok(store.loaded(failing.id), 'the session stays: its fork fails with the error');
    session.close();
    store.closeAll();
  });

  it("store.create of a fork: durable once journaled and written, the journal's copy retired once the file is flushed", async () => {
    const store = new SessionStore(dir);
    const h = { ...header(), id: id(7), parent: { sessionId: 's-parent' } };
    const session = store.create(h, [], { flushOffThread: true });
    await store.durable(h.id);
    const own = fs.readFileSync(store.fileOf(h.id));
    const journaled = readFrames(fs.readFileSync(path.join(dir, START_JOURNAL)));
    // Once the file's own flush is done the frame goes (the journal is emptied); before, it is the file's bytes.
    if (journaled.length > 0) assert.deepEqual(journaled[0].bytes, own);
    await store.starts.whenIdle();
    assert.deepEqual(store.starts.pending(), []);
    assert.equal(fs.statSync(path.join(dir, START_JOURNAL)).size, 0);
    session.close();
    store.closeAll();
  });
});

describe('session header line', () => {
  it('is byte for byte what JSON.stringify writes, with the prompt and tools encoded once', () => {
    const base = header();
    const forks: SessionHeader[] = [1, 2].map(n => ({ ...base, id: id(n), title: `fork "${n}" ✓`, mcpServers: undefined, parent: { sessionId: base.id, entryId: undefined } }));
    for (const h of [base, ...forks]) assert.equal(headerLine(h).toString('utf8'), JSON.stringify({ type: 'header', header: h }) + '\n');
    const other: SessionHeader = { ...base, systemPrompt: 'another prompt \u2028 with "quotes"', tools: [] };
    assert.equal(headerLine(other).toString('utf8'), JSON.stringify({ type: 'header', header: other }) + '\n');
  });
});
