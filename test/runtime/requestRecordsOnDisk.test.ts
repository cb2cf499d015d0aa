// The cache explorer's request records as they sit in session files: a fork's first record costs the same
// few bytes whatever its parent's length, a chat's records grow with what each turn adds (not with its
// history), the explanations read back from those files after a restart are the ones given before it, and a
// fork continued then (its parent not in memory) still writes a small record explained as extending.
// Runtime process + real SDK + fake server; sizes are read from the files on disk.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CacheStep } from '../../src/common/cacheExplorer';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionCache } from '../../src/common/protocol/runtime';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

describe('runtime: request records on disk', function () {
  this.timeout(120_000);
  let h: Harness;
  let parentScript: ScriptedTurn[];
  let forkScript: ScriptedTurn[];

  const setup = async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 } });
    parentScript = [];
    forkScript = [];
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript.shift() ?? say('Scope: test.\nResult: done.') : parentScript.shift() ?? say('parent: nothing scripted')));
  };
  afterEach(() => h?.dispose());

  const steps = async (sessionId: string): Promise<CacheStep[]> => (await sendRequest(h.client.endpoint, sessionCache, { sessionId })).steps;
  const fileOf = (id: string) => path.join(h.storeDir, 'sessions', `${id}.jsonl`);
  /** Bytes of each `request` line of a session's file, in order (the newline included). */
  const requestLineBytes = (id: string) => fs.readFileSync(fileOf(id), 'utf8').split('\n')
    .filter(line => line.startsWith('{"type":"request"')).map(line => Buffer.byteLength(line, 'utf8') + 1);

  /** A chat whose history holds `exchanges` question/answer pairs written on disk (as an importer writes them), then one turn sent. */
  const chatOf = async (exchanges: number): Promise<string> => {
    parentScript.push(say('one'));
    const first = await h.send('first question with enough words to be worth caching');
    await killRuntime(h.runtimePid());
    const entry = (n: number, kind: string, role: string, text: string) =>
      JSON.stringify({ type: 'entry', entry: { id: `e-crafted-${n}`, kind, time: new Date().toISOString(), message: { role, content: [{ type: 'text', text }] } } });
    const crafted = Array.from({ length: exchanges }, (_, i) => [entry(2 * i, 'prompt', 'user', `imported question ${i}`), entry(2 * i + 1, 'response', 'assistant', `imported answer ${i}`)]);
    fs.appendFileSync(fileOf(first.sessionId), crafted.flat().join('\n') + '\n');
    await h.reconnect();
    parentScript.push(say('two'));
    await h.send('second question', { sessionId: first.sessionId });
    return first.sessionId;
  };

  /** The bytes of the first request record of an `all` fork of `parent` (which asks for one tool, then reports). */
  const forkFirstRecordBytes = async (parent: string): Promise<{ forkId: string; bytes: number }> => {
    forkScript.push(call(['list_files', { path: '.' }]));
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent, directive: 'summarise the notes' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    const lines = requestLineBytes(fork.id);
    assert.equal(lines.length, 2, 'the fork sent two requests');
    return { forkId: fork.id, bytes: lines[0] };
  };

  it('a fork\'s first request record takes a few hundred bytes, the same for a parent ten times as long', async () => {
    await setup();
    const short = await chatOf(100);
    const long = await chatOf(1000);
    const parentRecord = (id: string) => requestLineBytes(id).at(-1)!;
    const shortFork = await forkFirstRecordBytes(short);
    const longFork = await forkFirstRecordBytes(long);
    // The long parent's latest record is the first to carry the 2000 imported entries' hashes: tens of KB, as every record in full was.
    assert.ok(parentRecord(long) > 25_000, `the long parent's record in full: ${parentRecord(long)} bytes`);
    assert.ok(longFork.bytes <= 2048, `the long parent's fork's first record: ${longFork.bytes} bytes`);
    assert.ok(Math.abs(longFork.bytes - shortFork.bytes) <= 64, `fork records ${shortFork.bytes} and ${longFork.bytes} bytes for parents of 100 and 1000 exchanges`);
    console.log(`      parents' latest records ${parentRecord(short)} / ${parentRecord(long)} B; fork first records ${shortFork.bytes} / ${longFork.bytes} B (100 / 1000 exchanges)`);

    // Read back after a restart, with the parent out of memory: each step is explained as it was.
    const before = await steps(longFork.forkId);
    const chatBefore = await steps(long);
    await killRuntime(h.runtimePid());
    await h.reconnect();
    assert.deepEqual(await steps(longFork.forkId), before, 'the fork\'s steps, read back without its parent');
    assert.deepEqual(await steps(long), chatBefore, 'the chat\'s steps, read back');
    assert.equal(before[1].cause, 'extended', before[1].detail);
    assert.equal(before[1].matchedBlocks, before[0].totalBlocks, 'the fork\'s second request extends its first');

    // Continued in this runtime, its parent still out of memory: the new record extends the last, small again.
    await sendRequest(h.client.endpoint, forkSend, { forkId: longFork.forkId, message: 'and the rest' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: longFork.forkId })).state, 'completed');
    const continued = (await steps(longFork.forkId))[2];
    assert.equal(continued.cause, 'extended', continued.detail);
    assert.equal(continued.matchedBlocks, before[1].totalBlocks, 'it extends the fork\'s previous request');
    const forkLines = requestLineBytes(longFork.forkId);
    assert.ok(forkLines[2] <= 2048, `the continued request's record: ${forkLines[2]} bytes`);
  });

  it('a long chat\'s request records each take what its turn added: the file grows linearly with turns', async () => {
    await setup();
    const chat = await chatOf(500);
    for (let turn = 0; turn < 6; turn++) {
      parentScript.push(say(`answer ${turn}`));
      await h.send(`question ${turn}`, { sessionId: chat });
    }
    const lines = requestLineBytes(chat);
    assert.equal(lines.length, 8);
    // The second record is the first to carry the 1000 imported entries' hashes (no earlier record holds them).
    assert.ok(lines[1] > 10_000, `the record that first carries the imported history: ${lines[1]} bytes`);
    const later = lines.slice(2);
    assert.ok(Math.max(...later) <= 1024, `each later record: ${later.join(', ')} bytes`);
    assert.ok(Math.max(...later) - Math.min(...later) <= 32, `later records do not grow with the history: ${later.join(', ')} bytes`);
    console.log(`      chat request records: ${lines.join(', ')} B`);
    const before = await steps(chat);
    assert.deepEqual(before.slice(2).map(s => s.cause), Array(6).fill('extended'));
    await killRuntime(h.runtimePid());
    await h.reconnect();
    assert.deepEqual(await steps(chat), before, 'the steps, read back from the file');
  });
});
