// A chat's history is on disk once: sealed as the chat goes, as byte ranges of its own append-only
// transcript, which forks — the first one included — only reference. Through the real runtime, SDK and
// fake server, measured from the files on disk; SIGKILL at the steps of a turn; a store written by main's
// code before this (copied v1 segments) loads, forks and continues.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionDelete } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';
import { retiredChats, sealLines, segmentFiles } from './sealedOnDisk';
import { V1_CHAT, V1_FORK, copyV1Store } from './v1Store';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const prompt = (n: number) => `Question ${n}: ${'lorem ipsum dolor '.repeat(700)}`;

/** Bytes of every file under `dir`. */
function treeBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? treeBytes(file) : fs.statSync(file).size;
  }
  return bytes;
}

/** The ids of the complete entry lines of a transcript, in order: what was committed. */
function committedIds(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return text.slice(0, text.lastIndexOf('\n')).split('\n').filter(line => line.startsWith('{"type":"entry"')).map(line => JSON.parse(line).entry.id as string);
}

describe('runtime: a chat\'s history stored once', function () {
  this.timeout(120_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const sessionFile = (id: string) => path.join(h.storeDir, 'sessions', `${id}.jsonl`);
  const historyBytes = () => treeBytes(path.join(h.storeDir, 'sessions')) + treeBytes(path.join(h.storeDir, 'segments'));
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });

  it('a long chat, SIGKILLed at each step of its turns, loses no committed turn, is on disk ≤ 1.1× its transcript, and its first fork writes ≤ 64 KB', async () => {
    h = await startHarness();
    fs.writeFileSync(path.join(h.root, 'notes.txt'), 'the notes say 42');
    // Each turn: a tool call, then an answer. `killAt` names the request of a turn the runtime dies on.
    let killAt: 'prompt' | 'results' | undefined;
    let onKill: (() => void) | undefined;
    h.fake.setResponder(r => {
      const results = r.rawBody.includes('"tool_result"') && JSON.parse(r.rawBody).messages.at(-1).content.some((b: { type: string }) => b.type === 'tool_result');
      if (killAt === (results ? 'results' : 'prompt')) {
        killAt = undefined;
        onKill?.();
        return new Promise(() => undefined);
      }
      return results ? say('noted') : call(['read_file', { path: 'notes.txt' }]);
    });
    let sessionId = (await h.send(prompt(0))).sessionId;
    let turn = 1;
    for (const point of ['prompt', 'results', 'prompt', 'results', 'torn seal'] as const) {
      for (let i = 0; i < 4; i++) await h.send(prompt(turn++), { sessionId });
      const pid = h.runtimePid();
      if (point === 'torn seal') {
        await killRuntime(pid);
        // A crash while the seal record was being written: half of it, no newline.
        const seal = fs.readFileSync(sessionFile(sessionId), 'utf8').split('\n').find(line => line.startsWith('{"type":"seal"'))!;
        fs.appendFileSync(sessionFile(sessionId), seal.slice(0, seal.length / 2));
      } else {
        const killed = new Promise<void>(resolve => (onKill = () => void killRuntime(pid).then(resolve)));
        killAt = point;
        h.send(prompt(turn++), { sessionId }).catch(() => undefined);
        await killed;
      }
      const committed = committedIds(sessionFile(sessionId));
      await h.reconnect();
      const after = (await h.transcript(sessionId)).entries.map(e => e.id);
      let at = 0;
      for (const id of after) if (id === committed[at]) at++;
      assert.equal(at, committed.length, `after SIGKILL at ${point}: every committed entry is in the history, in order`);
      sessionId = (await h.send(prompt(turn++), { sessionId })).sessionId;
    }

    const transcript = fs.statSync(sessionFile(sessionId)).size;
    const onDisk = historyBytes();
    assert.ok(transcript > 400_000, `a long chat (${transcript} B)`);
    assert.ok(sealLines(sessionFile(sessionId)).length >= 10, 'sealed as it went');
    assert.ok(onDisk <= 1.1 * transcript, `history on disk ${onDisk} B ≤ 1.1 × the transcript's ${transcript} B`);

    h.fake.setResponder(r => say(isForkRequest(r) ? 'Scope: all of it.' : 'noted'));
    const before = historyBytes();
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'report on the questions', forkTurns: 'all', isolation: 'shared' });
    assert.equal((await wait(fork.id)).state, 'completed');
    const written = historyBytes() - before;
    assert.ok(written <= 64 * 1024, `the first fork wrote ${written} B (≤ 64 KB)`);
    assert.ok(h.fake.requests.filter(isForkRequest).at(-1)!.rawBody.includes('Question 1:'), 'and inherits the whole history');
    assert.deepEqual(segmentFiles(h.storeDir), [], 'nothing was copied');
  });

  it('a store written before (copied v1 segments) loads, its fork continues, and the chat goes on sealing ranges chained to the old segments', async () => {
    h = await startHarness({
      fake: { responder: r => say(isForkRequest(r) ? 'Scope: migrated.' : 'noted') },
      prepare: (storeDir, root) => copyV1Store(storeDir, root),
    });
    const oldSegments = segmentFiles(h.storeDir);
    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    const old = forks.find(f => f.id === V1_FORK)!;
    assert.equal(old.state, 'completed');
    assert.equal(old.report, 'Scope: old segments.\nResult: heron.');
    await sendRequest(h.client.endpoint, forkSend, { forkId: V1_FORK, message: 'go on' });
    assert.equal((await wait(V1_FORK)).state, 'completed');
    const continued = h.fake.requests.at(-1)!.rawBody;
    assert.ok(continued.includes('the notes say 42') && continued.includes('The old secret word is heron.'), 'the old fork\'s history, read from its v1 segments');

    await h.send(prompt(1).repeat(3), { sessionId: V1_CHAT });
    await h.send('and a short one after it', { sessionId: V1_CHAT });
    const seals = sealLines(sessionFile(V1_CHAT));
    const newSeal = seals.find(seal => seal.segment)!;
    assert.ok(newSeal && oldSegments.includes(newSeal.segment!.prev!), 'the new range continues the old chain');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: V1_CHAT, directive: 'report on both', forkTurns: 'all', isolation: 'shared' });
    assert.equal((await wait(fork.id)).state, 'completed');

    // Deleted and killed: the fork revives from a fresh runtime with the retired transcript and the old copies.
    await sendRequest(h.client.endpoint, sessionDelete, { sessionId: V1_CHAT });
    assert.deepEqual(retiredChats(h.storeDir), [V1_CHAT]);
    assert.deepEqual(segmentFiles(h.storeDir), oldSegments, 'the old copies stay while a fork of their chat exists');
    await killRuntime(h.runtimePid());
    await h.reconnect();
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'once more' });
    assert.equal((await wait(fork.id)).state, 'completed');
    const revived = h.fake.requests.at(-1)!.rawBody;
    assert.ok(revived.includes('The old secret word is heron.') && revived.includes('Question 1:') && revived.includes('and a short one after it'), 'old and new history both read back');
  });
});
