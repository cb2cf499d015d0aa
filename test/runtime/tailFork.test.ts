// The first `all` fork of a chat the runtime has not loaded names the chat's history from its transcript's
// tail (docs/design.md §3) and answers before reading the rest. Probed from outside: its first request
// repeats the chat's latest request byte for byte and is what a fork of the loaded chat sends; after a
// restart it revives and continues; deleting the chat leaves it whole; a torn tail (a crash mid-append)
// sends it down the ordinary path with nothing lost.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionDelete } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { killRuntime, useSharedHarness } from './harness';
import { say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const withoutIds = (body: string) => body.replace(/\b(?:f|s|e|fork|toolu)[-_][A-Za-z0-9_-]{6,}/g, '<id>');
/** Enough turns that the chat sealed history (64 entries or 32 KB) and has an unsealed tail after it. */
const TURNS = 36;

describe('runtime: the first fork of a chat not loaded, named from its transcript\'s tail', function () {
  this.timeout(120_000);
  const h = useSharedHarness();
  let received: ReceivedRequest[];
  beforeEach(async () => {
    received = [];
    h.fake.onRequest(r => received.push(r));
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: the chat.\nResult: seen.') : say(`Answer ${r.body.messages.length}: ${'«naïve» café 🚀 '.repeat(40)}`)));
  });

  async function chat(): Promise<string> {
    let sessionId: string | undefined;
    for (let n = 1; n <= TURNS; n++) sessionId = (await h.send(`Question ${n} — «Frage ${n}».`, { root: h.root, ...(sessionId ? { sessionId } : {}) })).sessionId;
    return sessionId!;
  }

  async function fork(sessionId: string, directive: string): Promise<{ id: string; first: ReceivedRequest }> {
    const before = received.length;
    const started = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive, forkTurns: 'all', isolation: 'shared', name: directive });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
    assert.equal(done.state, 'completed', done.error);
    const first = received.slice(before).find(r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${directive}`));
    assert.ok(first, `the fork "${directive}" sent a request`);
    return { id: started.id, first };
  }

  /** The chat's own latest request up to where its last message (its prompt) starts: what the fork's first request must repeat. */
  function parentPrefix(): string {
    const last = [...received].reverse().find(r => !isForkRequest(r))!;
    const cut = last.rawBody.lastIndexOf('{"role":"user"');
    assert.ok(cut > 0, 'the chat\'s request ends with its prompt');
    return last.rawBody.slice(0, cut);
  }

  const restart = async () => {
    await killRuntime(h.runtimePid());
    await h.reconnect();
  };

  it('repeats the chat\'s latest request and sends what a fork of the loaded chat sends', async () => {
    const sessionId = await chat();
    const prefix = parentPrefix();
    await restart();
    const tail = await fork(sessionId, 'Review the numbered questions, first fork.');
    assert.ok(tail.first.rawBody.startsWith(prefix), 'the first request repeats the chat\'s latest one up to its last message');
    // The chat is loaded now (the first fork's run read it): the ordinary path, for comparison.
    const loaded = await fork(sessionId, 'Review the numbered questions, later fork.');
    assert.equal(withoutIds(tail.first.rawBody).replace('first fork', 'later fork'), withoutIds(loaded.first.rawBody), 'the same bytes as a fork of the loaded chat');
    assert.equal(tail.first.headers['content-length'], String(Buffer.byteLength(tail.first.rawBody)));
  });

  it('revives after a restart, and continues after the chat was deleted', async () => {
    const sessionId = await chat();
    await restart();
    const { id, first } = await fork(sessionId, 'Review the numbered questions, then wait.');
    const inherited = first.body.messages.length;
    await restart();
    await sendRequest(h.client.endpoint, sessionDelete, { sessionId });
    assert.equal(fs.existsSync(path.join(h.storeDir, 'sessions', `${sessionId}.jsonl`)), false, 'the chat is gone from the list');
    await restart();
    const before = received.length;
    await sendRequest(h.client.endpoint, forkSend, { forkId: id, message: 'One more thing — «noch etwas».' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: id });
    assert.equal(done.state, 'completed', done.error);
    const next = received.slice(before).find(r => r.rawBody.includes('noch etwas'));
    assert.ok(next, 'the continued fork sent a request');
    assert.equal(next.body.messages.length, inherited + 2, 'its whole inherited history, its answer and the new message');
    // Breakpoints move with a continued fork's requests; the messages themselves are the same.
    const plain = (messages: unknown[]) => JSON.stringify(messages, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
    assert.ok(plain(next.body.messages.slice(0, inherited - 1)) === plain(first.body.messages.slice(0, inherited - 1)), 'the same history');
  });

  it('a torn last line (a crash mid-append): the ordinary path, nothing committed lost', async () => {
    const sessionId = await chat();
    const prefix = parentPrefix();
    await killRuntime(h.runtimePid());
    const file = path.join(h.storeDir, 'sessions', `${sessionId}.jsonl`);
    const committed = fs.statSync(file).size;
    fs.appendFileSync(file, '{"type":"entry","entry":{"id":"e-torn-in-the-mid');
    await h.reconnect();
    const { first } = await fork(sessionId, 'Review the numbered questions after the crash.');
    assert.ok(first.rawBody.startsWith(prefix), 'every committed entry, as the chat last sent them');
    assert.equal(first.rawBody.includes('e-torn-in-the-mid'), false);
    assert.ok(fs.statSync(file).size >= committed, 'the chat\'s committed records stay');
  });
});
