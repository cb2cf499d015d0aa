// fork.retention.days (docs/design.md §3) through the real runtime: what was not written to for that many days goes
// when a client configures it, with the sealed history nothing else references; what is recent stays, and
// so does the history a kept fork still references, even when its parent chat expired.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionList } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { retiredChats, retiredFile, segmentFiles, sealLines } from './sealedOnDisk';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
/** A prompt past the seal threshold (32 KB): committing it seals the history so far into segments. */
const big = (topic: string) => `Topic ${topic}. ${'lorem ipsum '.repeat(3_000)}`;
const DAY = 24 * 60 * 60 * 1000;

describe('runtime: fork.retention.days deletes what is old and unreferenced', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const sessionFile = (id: string) => path.join(h.storeDir, 'sessions', `${id}.jsonl`);
  const age = (id: string, days: number) => {
    const then = new Date(Date.now() - days * DAY);
    fs.utimesSync(sessionFile(id), then, then);
  };
  const listedIds = async () => (await sendRequest(h.client.endpoint, sessionList, {})).sessions.map(s => s.id).sort();
  const forkOf = async (sessionId: string) => {
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'report on the topic', forkTurns: 'all', isolation: 'shared' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    return fork.id;
  };

  it('deletes old chats and forks with the history only they referenced; keeps recent ones and what a kept fork references', async () => {
    h = await startHarness();
    h.fake.setResponder(r => say(isForkRequest(r) ? 'Scope: done.' : 'noted'));
    // Old chat with an old fork: both go.
    const oldChat = (await h.send(big('old'))).sessionId;
    await h.send(big('old, more'), { sessionId: oldChat });
    const oldFork = await forkOf(oldChat);
    // Old chat whose fork is recent: the chat goes, the fork and the history it inherited stay.
    const parentChat = (await h.send(big('inherited'))).sessionId;
    await h.send(big('inherited, more'), { sessionId: parentChat });
    const keptFork = await forkOf(parentChat);
    // A recent chat: stays.
    const recentChat = (await h.send(big('recent'))).sessionId;
    for (const chat of [oldChat, parentChat, recentChat]) assert.ok(sealLines(sessionFile(chat)).some(seal => seal.segment), `${chat} sealed its history as ranges of its transcript`);
    assert.deepEqual(segmentFiles(h.storeDir), [], 'and copied none of it');

    for (const id of [oldChat, oldFork, parentChat]) age(id, 40);
    age(keptFork, 10);
    await h.configure({ retentionDays: 30 });

    for (const id of [oldChat, oldFork, parentChat]) assert.equal(fs.existsSync(sessionFile(id)), false, `${id} deleted`);
    assert.deepEqual(await listedIds(), [keptFork, recentChat].sort());
    // The chat a kept fork inherits from stays as a retired transcript; the old chat's history is gone.
    assert.deepEqual(retiredChats(h.storeDir), [parentChat], 'the kept fork\'s inherited history stays, nothing else');
    assert.equal(fs.statSync(retiredFile(h.storeDir, parentChat)).mode & 0o777, 0o600);
    const log = fs.readFileSync(runtimeLogPath(h.storeDir), 'utf8');
    for (const id of [oldChat, oldFork, parentChat]) assert.match(log, new RegExp(`deleted ${id}: not written to for 30 days`));

    // The kept fork still has its whole inherited history: continuing it sends its parent's topic.
    await sendRequest(h.client.endpoint, forkSend, { forkId: keptFork, message: 'once more' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: keptFork })).state, 'completed');
    assert.ok(h.fake.requests.at(-1)!.rawBody.includes('Topic inherited.'), 'the fork\'s request carries the history it inherited');
  });

  it('0 keeps everything, however old', async () => {
    h = await startHarness();
    h.fake.setResponder(() => say('noted'));
    const chat = (await h.send('a short question')).sessionId;
    age(chat, 400);
    await h.configure({ retentionDays: 0 });
    assert.deepEqual(await listedIds(), [chat]);
  });
});
