// A damaged transcript line (the probe: a tool_results line cut to 200 characters plus garbage)
// must not brick the session: the entry comes back from a copied (v1) segment when one holds it — stores
// written before history was kept once; otherwise (history sealed as ranges of the transcript itself has
// no second copy) what the damage left open is closed, so requests stay valid; the user is told which line.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkStart, forkWait } from '../../src/common/protocol/forks';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';
import { V1_CHAT, copyV1Store } from './v1Store';
import { segmentFiles, sealLines } from './sealedOnDisk';
import { damageTools } from './damage';

describe('runtime: a damaged transcript line', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const { sessionFile, readExchange, damageToolResults, damageLaunchRecord, lastToolResults } = damageTools(() => h);
  /** After the damage: a new runtime, the next turn; the one tool result its request carries. */
  const askAfterDamage = async (sessionId: string) => {
    await h.reconnect();
    h.fake.setResponder(() => say('still here'));
    const next = await h.send('and now?', { sessionId });
    assert.equal(next.stopReason, 'end_turn');
    const results = lastToolResults();
    assert.equal(results.length, 1);
    return results;
  };

  it('without a segment holding it: the open call is closed, the next request is valid, and chat, transcript and log say which line', async () => {
    h = await startHarness();
    const sessionId = await readExchange();
    await killRuntime(h.runtimePid());
    const line = damageToolResults(sessionId);

    await h.reconnect();
    h.fake.setResponder(() => say('still here'));
    const before = h.fake.requests.length;
    const next = await h.send('and now?', { sessionId });
    assert.equal(next.stopReason, 'end_turn', `the next turn works (${JSON.stringify(next)})`);
    assert.equal(h.fake.requests.length, before + 1, 'one request, accepted');
    const results = lastToolResults();
    assert.equal(results.length, 1);
    assert.match(String(results[0].content), new RegExp(`line ${line}\\) was damaged`));

    const chatText = h.events.filter(e => e.sessionId === sessionId && e.event.type === 'text_delta').map(e => (e.event as { text: string }).text).join('');
    assert.match(chatText, new RegExp(`line ${line} of the transcript was damaged`), 'the chat says so');
    const { damage } = await h.transcript(sessionId);
    assert.equal(damage?.length, 1);
    assert.match(damage![0], new RegExp(`line ${line} .*record is lost; 1 call\\(s\\) without a result got an error result`));
    assert.match(fs.readFileSync(runtimeLogPath(h.storeDir), 'utf8'), new RegExp(`session ${sessionId}: line ${line} of the transcript was damaged`));
  });

  it('sealed as a range of the transcript: nothing holds a copy, so the open call is closed; later history is sealed as a copy', async () => {
    h = await startHarness();
    const sessionId = await readExchange();
    h.fake.setResponder(() => say('noted'));
    await h.send(`keep this in mind: ${'x'.repeat(40_000)}`, { sessionId });
    const seals = sealLines(sessionFile(sessionId));
    assert.ok(seals.length > 0 && seals.every(seal => seal.segment), 'the history was sealed as ranges of the transcript');
    await killRuntime(h.runtimePid());
    const line = damageToolResults(sessionId);

    const results = await askAfterDamage(sessionId);
    assert.match(JSON.stringify(results[0].content), /transcript line that held this call's result \(line \d+\) was damaged/);
    const { damage } = await h.transcript(sessionId);
    assert.match(damage?.[0] ?? '', new RegExp(`line ${line} .*record is lost; 1 call\\(s\\) without a result got an error result`));
    // The history in memory no longer matches the file's lines: it is sealed as a copy, which a fork can read.
    assert.ok(segmentFiles(h.storeDir).length > 0, 'the mended history was sealed as a copy');
    h.fake.setResponder(r => say(r.rawBody.includes('<fork-boilerplate>') ? 'Scope: mended.' : 'noted'));
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'report', forkTurns: 'all', isolation: 'shared' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
  });

  it('in a store written before history was kept once: the lost entry is read back from its copied segment, whole', async () => {
    h = await startHarness({ prepare: (storeDir, root) => copyV1Store(storeDir, root) });
    const sessionId = V1_CHAT;
    await killRuntime(h.runtimePid());
    const line = damageToolResults(sessionId);

    const results = await askAfterDamage(sessionId);
    assert.match(JSON.stringify(results[0].content), /the notes say 42/, 'the original result, recovered');
    const { damage } = await h.transcript(sessionId);
    assert.match(damage?.[0] ?? '', new RegExp(`line ${line} .*recovered from sealed segment`));
  });

  it('a fork whose own tool_results line is damaged: fork/list says which line and what was done (the Forks panel shows it)', async () => {
    h = await startHarness();
    fs.writeFileSync(path.join(h.root, 'notes.txt'), 'the notes say 42');
    let forkTurn = 0;
    h.fake.setResponder(r => {
      if (!r.rawBody.includes('<fork-boilerplate>')) return say('noted');
      return forkTurn++ === 0 ? call(['read_file', { path: 'notes.txt' }]) : say('Scope: the notes.\nResult: 42.');
    });
    const { sessionId } = await h.send('hello');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'read the notes', isolation: 'shared' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    const before = (await sendRequest(h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.equal(before.damage, undefined, 'an intact fork has no notice');
    await killRuntime(h.runtimePid());
    const line = damageToolResults(fork.id);

    await h.reconnect();
    const listed = (await sendRequest(h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.equal(listed.state, 'completed', 'still listed as it ended');
    assert.equal(listed.damage?.length, 1);
    assert.match(listed.damage![0], new RegExp(`^line ${line} of the transcript was damaged and its record is lost; 1 call\\(s\\) without a result got an error result`));
  });

  for (const how of ['torn', 'damaged'] as const) {
    it(`a fork whose launch record is ${how} is listed as damaged, with the reason`, async () => {
      h = await startHarness();
      const { sessionId, forkId, text } = await damageLaunchRecord(how);

      await h.reconnect();
      const listed = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: sessionId })).forks.find(f => f.id === forkId);
      assert.ok(listed, 'the fork is listed');
      assert.equal(listed.state, 'failed');
      assert.match(listed.error ?? '', how === 'torn' ? /launch record \(line 2 of its transcript\) is torn/ : /launch record \(line 2 of its transcript\) is damaged/);
      assert.equal(fs.readFileSync(sessionFile(forkId), 'utf8'), text, 'its file was left as it was');
      assert.match(fs.readFileSync(runtimeLogPath(h.storeDir), 'utf8'), new RegExp(`fork ${forkId}: its launch record`));
    });
  }
});
