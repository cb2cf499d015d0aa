// Forks inherit history by reference to sealed, content-addressed segments. Through the real
// runtime, SDK and fake server: what a fork revives with never changes, whatever happens to its parent;
// damage stays with the forks that reference it; deletion keeps what is referenced; 0.1.0 stores load.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionCompact, sessionDelete } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { cliRunner, lastJson } from './cliRunner';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { TEST_KEY, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';
import { retiredChats, retiredFile, segmentFiles, sealLines } from './sealedOnDisk';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const isSummaryRequest = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');
/** A prompt past the seal threshold (32 KB): committing it seals the history so far. */
const big = (topic: string) => `Topic ${topic}. ${'lorem ipsum '.repeat(3_000)}`;
const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/store-0.1.0');

describe('runtime: forks of shared, sealed history (docs/design.md §3)', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const start = (sessionId: string, directive = 'report on the topics') =>
    sendRequest(h.client.endpoint, forkStart, { sessionId, directive, forkTurns: 'all', isolation: 'shared' });
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });
  const forkFile = (id: string) => path.join(h.storeDir, 'sessions', `${id}.jsonl`);
  const bootstrapOf = (id: string) => JSON.parse(fs.readFileSync(forkFile(id), 'utf8').split('\n')[1]).bootstrap;
  /** The chain ending at `head`, read from the seal records of `chat`'s transcript. */
  const chainOf = (chat: string, head: string) => {
    const byHash = new Map(sealLines(forkFile(chat)).map(seal => [seal.hash, seal]));
    const out: string[] = [];
    for (let hash: string | null = head; hash; hash = byHash.get(hash)!.segment!.prev) out.push(hash);
    return out.sort();
  };

  it('a fork revives after SIGKILL with exactly its launch-time history after its parent was compacted, rewound, appended to and deleted', async () => {
    h = await startHarness();
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    let forkRequests = 0;
    h.fake.setResponder(async r => {
      if (isSummaryRequest(r)) return say('SUMMARY: topics one to three were discussed.');
      if (isForkRequest(r)) {
        // The first fork request is held until the runtime that sent it is gone.
        if (forkRequests++ === 0) await gate;
        return say('Scope: topics.\nResult: reported.');
      }
      return say(`noted: ${r.body.messages.length} messages`);
    });
    const first = await h.send(big('one'));
    const sessionId = first.sessionId;
    await h.send(big('two'), { sessionId });
    await h.send('and a small third question', { sessionId });
    const launched = new Promise<ReceivedRequest>(resolve => h.fake.onRequest(r => isForkRequest(r) && resolve(r)));
    const fork = await start(sessionId);
    const atLaunch = await launched;

    const bootstrap = bootstrapOf(fork.id);
    assert.ok(bootstrap.history?.head, 'the bootstrap names its history by segment');
    assert.equal(bootstrap.inherited, undefined, 'and does not repeat it');
    assert.deepEqual(bootstrap.policy, { approvalMode: 'auto', sandbox: { mode: 'off' } }, 'and records the launch policy, revival never looser (docs/design.md §4.7)');
    // The history is sealed as byte ranges of the chat's own transcript: on disk once, no copy.
    const seals = sealLines(forkFile(sessionId));
    assert.ok(seals.length > 0 && seals.every(seal => seal.segment?.owner === sessionId), 'sealed inline, as ranges of the transcript');
    assert.ok(chainOf(sessionId, bootstrap.history.head).length > 0);
    assert.deepEqual(segmentFiles(h.storeDir), [], 'no segment file copies it');
    const segmentsDir = path.join(h.storeDir, 'segments');
    assert.equal(fs.statSync(segmentsDir).mode & 0o777, 0o700, 'segments folder 0700');
    const parentBytes = fs.statSync(forkFile(sessionId)).size;
    assert.ok(fs.statSync(forkFile(fork.id)).size < 64 * 1024 && parentBytes > 64 * 1024, `fork file small (${fs.statSync(forkFile(fork.id)).size} B) next to its parent (${parentBytes} B)`);

    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    const { entries } = await h.transcript(sessionId);
    await h.send('after a rewind', { sessionId, afterEntryId: entries[1].id });
    await h.send(big('four, appended'), { sessionId });
    await sendRequest(h.client.endpoint, sessionDelete, { sessionId });
    assert.ok(!fs.existsSync(forkFile(sessionId)), 'the parent file is gone');
    // Retired, not removed: the fork's history is ranges of it. The user's alone, like the transcripts (docs/design.md §6).
    assert.deepEqual(retiredChats(h.storeDir), [sessionId]);
    assert.equal(fs.statSync(path.join(segmentsDir, 'retired')).mode & 0o777, 0o700, 'retired folder 0700');
    assert.equal(fs.statSync(retiredFile(h.storeDir, sessionId)).mode & 0o777, 0o600, 'retired transcript 0600');

    await killRuntime(h.runtimePid());
    release();
    await h.reconnect();
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed', done.error);
    const revived = h.fake.requests.filter(isForkRequest).at(-1)!;
    assert.notEqual(revived, atLaunch);
    for (const key of ['messages', 'system', 'tools', 'model', 'max_tokens']) {
      assert.equal(JSON.stringify(revived.body[key]), JSON.stringify(atLaunch.body[key]), `${key}: the same bytes as at launch`);
    }
    assert.ok(revived.rawBody.includes('Topic two.') && !revived.rawBody.includes('four, appended') && !revived.rawBody.includes('SUMMARY'));
  });

  it('a damaged segment fails only the forks that reference it, with the reason', async () => {
    h = await startHarness();
    h.fake.setResponder(r => say(isForkRequest(r) ? 'Scope: done.' : 'noted'));
    const a = (await h.send(big('alpha'))).sessionId;
    const b = (await h.send(big('beta'))).sessionId;
    const forkA = await start(a);
    const forkB = await start(b);
    assert.equal((await wait(forkA.id)).state, 'completed');
    assert.equal((await wait(forkB.id)).state, 'completed');
    const head = bootstrapOf(forkA.id).history.head as string;
    assert.ok(!chainOf(b, bootstrapOf(forkB.id).history.head).includes(head), 'the two forks share no segment');

    await killRuntime(h.runtimePid());
    // The segment is a byte range of chat a's transcript: a byte changed there damages it (the length is kept).
    const file = forkFile(a);
    const text = fs.readFileSync(file, 'utf8');
    // The prompt's entry, not the header (whose title starts with the same words).
    const at = Buffer.byteLength(text.slice(0, text.indexOf('"text":"Topic alpha')));
    const damagedSeal = sealLines(file).find(seal => seal.segment!.from <= at && at < seal.segment!.to)!;
    assert.ok(damagedSeal, 'the topic is in a sealed range');
    fs.writeFileSync(file, text.replace('"text":"Topic alpha', '"text":"Topic ALPHA'));
    await h.reconnect();

    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    const damaged = forks.find(f => f.id === forkA.id)!;
    const intact = forks.find(f => f.id === forkB.id)!;
    assert.equal(damaged.state, 'failed');
    assert.match(damaged.error ?? '', new RegExp(`segment ${damagedSeal.hash} is damaged \\(bytes ${damagedSeal.segment!.from}–${damagedSeal.segment!.to} of the transcript of ${a} changed\\)`));
    assert.equal(intact.state, 'completed');
    await assert.rejects(sendRequest(h.client.endpoint, forkSend, { forkId: forkA.id, message: 'go on' }), /cannot continue: its inherited history cannot be read/);
    await sendRequest(h.client.endpoint, forkSend, { forkId: forkB.id, message: 'go on' });
    assert.equal((await wait(forkB.id)).state, 'completed');
    assert.ok(h.fake.requests.at(-1)!.rawBody.includes('Topic beta.'), 'the intact fork continues with its inherited history');
  });

  it('deleting a chat whose fork references its history retires its transcript (nothing is copied); deleting the fork removes it', async () => {
    h = await startHarness();
    h.fake.setResponder(r => say(isForkRequest(r) ? 'Scope: done.' : 'noted'));
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => h.storeDir });
    const sessionId = (await h.send(big('kept'))).sessionId;
    const fork = await start(sessionId);
    assert.equal((await wait(fork.id)).state, 'completed');
    await h.send(big('later one'), { sessionId });
    await h.send(big('later two'), { sessionId });
    const referenced = chainOf(sessionId, bootstrapOf(fork.id).history.head);
    assert.ok(sealLines(forkFile(sessionId)).length > referenced.length, 'the parent sealed more after the fork');
    const parentBytes = fs.statSync(forkFile(sessionId)).size;

    const listed = await cli('list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^store: [\d.]+ (KB|MB) \(2 session files .*, \d+ history segments/m);
    const deleted = await cli('delete', '--session', sessionId, '--json');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(lastJson(deleted).segmentsRemoved, 0, 'nothing the fork references is removed');
    assert.deepEqual(retiredChats(h.storeDir), [sessionId], 'the chat\'s transcript is kept apart, no longer listed');
    assert.equal(fs.statSync(retiredFile(h.storeDir, sessionId)).size, parentBytes, 'whole, as it was');
    assert.deepEqual(segmentFiles(h.storeDir), [], 'and nothing was copied');
    assert.match((await cli('list')).stdout, new RegExp(`${fork.id} .*parent ${sessionId} deleted`));

    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'once more' });
    assert.equal((await wait(fork.id)).state, 'completed');
    assert.ok(h.fake.requests.at(-1)!.rawBody.includes('Topic kept.'));

    const bad = await cli('delete', '--session', fork.id);
    assert.equal(bad.code, 2, 'a fork id given as --session is bad input');
    const forkDeleted = await cli('delete', '--fork', fork.id, '--json');
    assert.equal(forkDeleted.code, 0, forkDeleted.stderr);
    assert.equal(lastJson(forkDeleted).segmentsRemoved, 1);
    assert.equal(lastJson(forkDeleted).freedBytes, parentBytes, 'the retired transcript\'s bytes are freed');
    assert.deepEqual(retiredChats(h.storeDir), []);
  });

  it('a store written by release 0.1.0 (self-contained bootstraps) loads, revives and forks again', async () => {
    // The responder is in place before the runtime starts: configure revives the interrupted fork at once.
    h = await startHarness({
      fake: { responder: r => say(isForkRequest(r) ? 'Scope: migrated.' : 'noted') },
      prepare: (storeDir, root) => {
        fs.mkdirSync(path.join(storeDir, 'sessions'), { recursive: true });
        for (const name of fs.readdirSync(path.join(FIXTURE, 'sessions'))) {
          // The old release's chats ran on Sonnet 4.5, retired on 2026-11-30: the API (and the runtime,
          // retiredModels.test.ts) would refuse their requests now, so the copy names a model still served.
          const text = fs.readFileSync(path.join(FIXTURE, 'sessions', name), 'utf8').split('/FIXTURE_ROOT').join(root).split('"claude-sonnet-4-5"').join('"claude-haiku-4-5"');
          fs.writeFileSync(path.join(storeDir, 'sessions', name), text);
        }
      },
    });
    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    const done = forks.find(f => f.name === 'old finished')!;
    const pending = forks.find(f => f.name === 'old interrupted')!;
    assert.equal(done.state, 'completed');
    assert.equal(done.report, 'Scope: old.\nResult: heron.');
    const revivedSummary = await wait(pending.id);
    assert.equal(revivedSummary.state, 'completed', revivedSummary.error);
    const revived = h.fake.requests.find(isForkRequest)!;
    assert.ok(revived.rawBody.includes('The old secret word is heron.') && revived.rawBody.includes('interrupted fork of the old release'));

    const fresh = await start(pending.parentSessionId, 'a new fork of the old chat');
    assert.equal((await wait(fresh.id)).state, 'completed');
    // The old chat's three entries are below the seal threshold: the new-format bootstrap carries them as its bounded tail.
    const bootstrap = bootstrapOf(fresh.id);
    assert.equal(bootstrap.inherited, undefined);
    assert.equal(bootstrap.history.parts.flatMap((p: { entries?: unknown[] }) => p.entries ?? []).length, 3);
    assert.ok(h.fake.requests.at(-1)!.rawBody.includes('The old secret word is heron.'));
  });

  it('an idle chat leaves memory and is streamed in again on its next use, history intact', async () => {
    process.env.FORK_AGENTS_EVICT_IDLE_MS = '1000';
    try {
      h = await startHarness();
    } finally {
      delete process.env.FORK_AGENTS_EVICT_IDLE_MS;
    }
    h.fake.setResponder(() => say('noted'));
    const sessionId = (await h.send(big('remembered'))).sessionId;
    const log = runtimeLogPath(h.storeDir);
    const evicted = `session ${sessionId} left memory (idle)`;
    await new Promise<void>(resolve => {
      const check = () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes(evicted) && (watcher.close(), resolve());
      const watcher = fs.watch(path.dirname(log), check);
      check();
    });
    await h.send('what was the topic?', { sessionId });
    const last = h.fake.requests.at(-1)!;
    assert.ok(last.rawBody.includes('Topic remembered.') && last.rawBody.includes('what was the topic?'));
  });
});
