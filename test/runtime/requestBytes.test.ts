// The runtime encodes request bodies itself (src/runtime/model/requestBytes.ts: frozen history encoded once,
// sent as a Buffer). Through the real runtime, SDK and fake server, the same chat and `all` fork run twice —
// once with that encoder, once with the SDK's own (FORK_AGENTS_BODY_ENCODER=sdk) — and the bytes the fake
// received must be the same, request for request, and the fork must read the cache at least as well.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

interface Run { bodies: string[]; contentTypes: unknown[]; forkFirst: ReceivedRequest }

describe('runtime: request bytes encoded by the runtime are the SDK\'s bytes', function () {
  this.timeout(90_000);
  const harnesses: Harness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map(h => h.dispose()));
  });

  /** A chat with tool calls, non-ASCII text and a long tool result, then an `all` fork of it. */
  // One work folder for both runs: it is in the prompt, and the fake binds thinking to the prompt's bytes.
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-bytes-'));
    fs.writeFileSync(path.join(root, 'notes.md'), `# Notes\n${'Zeile mit Umlauten äöü und \u2028 separator.\n'.repeat(400)}`);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  async function chatAndFork(env: NodeJS.ProcessEnv): Promise<Run> {
    const h = await startHarness({ env });
    harnesses.push(h);
    const received: ReceivedRequest[] = [];
    h.fake.onRequest(r => received.push(r));
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say('Scope: the notes.\nResult: read them — all 3 ✓.');
      const last = r.body.messages.at(-1);
      const answered = last?.content?.some?.((b: { type: string }) => b.type === 'tool_result');
      if (!answered && r.body.messages.length < 4) return call(['list_files', { path: '.' }], ['read_file', { path: 'notes.md' }]);
      return say(`Seen ${r.body.messages.length} messages: «naïve» café, emoji 🚀, quote "x" and \\ backslash.`);
    });
    const first = await h.send('List the files and read the notes — «bitte».', { root });
    await h.send('And now a second question, with a tab\tand a newline\nin it.', { root, sessionId: first.sessionId });
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: first.sessionId, directive: 'Summarise the notes in one line.', forkTurns: 'all', isolation: 'shared', name: 'bytes' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed', done.error);
    const forkFirst = received.find(isForkRequest);
    assert.ok(forkFirst, 'the fork sent a request');
    return { bodies: received.map(r => r.rawBody), contentTypes: received.map(r => r.headers['content-type']), forkFirst };
  }

  it('a chat and its `all` fork send byte-identical requests either way, and the fork reads the cache as much', async () => {
    const sdk = await chatAndFork({ FORK_AGENTS_BODY_ENCODER: 'sdk' });
    const ours = await chatAndFork({});
    assert.ok(sdk.bodies.length >= 4, `requests: ${sdk.bodies.length}`);
    assert.equal(ours.bodies.length, sdk.bodies.length, 'as many requests');
    for (let i = 0; i < sdk.bodies.length; i++) assert.equal(ours.bodies[i], sdk.bodies[i], `request ${i + 1} differs`);
    assert.deepEqual(ours.contentTypes, sdk.contentTypes, 'the same content type');
    const sdkRead = sdk.forkFirst.usage?.cache_read_input_tokens ?? 0;
    const oursRead = ours.forkFirst.usage?.cache_read_input_tokens ?? 0;
    assert.ok(sdkRead > 0, 'the fork\'s first request read the parent\'s cache');
    assert.ok(oursRead >= sdkRead, `cache read ${oursRead} ≥ ${sdkRead}`);
  });

  // The first request of an `all` fork is its parent's latest request with the messages since appended (the
  // answer to it, and the directive): the bytes of the parent's request up to the end of its messages are
  // repeated exactly, and so is everything after the messages (thinking, stream). Compared with what the
  // fake received, not with a body rebuilt here.
  it('the first request of an `all` fork is the parent\'s latest request byte for byte, plus its answer and the directive', async () => {
    const h = await startHarness({});
    harnesses.push(h);
    const received: ReceivedRequest[] = [];
    h.fake.onRequest(r => received.push(r));
    const answer = 'The notes are read: «fertig» ✓.';
    h.fake.setResponder(r => say(isForkRequest(r) ? 'Scope: notes.\nResult: one line.' : answer));
    const first = await h.send('Read the notes, please — «bitte».', { root });
    await h.send('A second question about them.', { root, sessionId: first.sessionId });
    const directive = 'Summarise the notes in one line (byte check).';
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: first.sessionId, directive, forkTurns: 'all', isolation: 'shared', name: 'prefix' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed', done.error);
    const forkAt = received.findIndex(isForkRequest);
    assert.ok(forkAt >= 2, 'the parent sent two requests before the fork\'s');
    const parentLast = received[forkAt - 1].rawBody;
    const forkFirst = received[forkAt].rawBody;
    let common = 0;
    while (common < parentLast.length && parentLast[common] === forkFirst[common]) common++;
    // Where they part, the parent's messages array closes and the fork's goes on with more messages.
    assert.equal(parentLast[common], ']', `the parent's request goes on differently at ${common}: ${parentLast.slice(common, common + 80)}`);
    assert.equal(forkFirst[common], ',', `the fork's request goes on differently at ${common}: ${forkFirst.slice(common, common + 80)}`);
    const afterMessages = parentLast.slice(common + 1);
    assert.ok(afterMessages.startsWith(',"') || afterMessages === '}', `after the messages: ${afterMessages.slice(0, 80)}`);
    assert.ok(forkFirst.endsWith(`]${afterMessages}`), 'what follows the messages is the same bytes');
    const added = JSON.parse(`[${forkFirst.slice(common + 1, forkFirst.length - afterMessages.length - 1)}]`) as { role: string; content: { type: string; text?: string }[] }[];
    assert.deepEqual(added.map(m => m.role), ['assistant', 'user'], 'the parent\'s answer, then the directive');
    assert.equal(added[0].content.filter(b => b.type === 'text').map(b => b.text).join(''), answer);
    assert.ok(added[1].content.some(b => b.type === 'text' && b.text!.includes(`DIRECTIVE: ${directive}`)), 'the directive closes the request');
    assert.equal(JSON.parse(parentLast).messages.length + 2, JSON.parse(forkFirst).messages.length);
  });

  // The messages a fork's first request repeats are built once and kept on the parent (agent/requestPrefix.ts):
  // by the first fork of a parent loaded from disk, then reused by its sibling; after the parent's next turn,
  // by the parent's own request. Each run's bytes as the fake received them, against the SDK's own encoder.
  async function siblingsOfLoadedParent(env: NodeJS.ProcessEnv): Promise<ReceivedRequest[]> {
    const h = await startHarness({ env });
    harnesses.push(h);
    const received: ReceivedRequest[] = [];
    h.fake.onRequest(r => received.push(r));
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say('Scope: the notes.\nResult: read — «ok» ✓.');
      const last = r.body.messages.at(-1);
      const answered = last?.content?.some?.((b: { type: string }) => b.type === 'tool_result');
      return answered || r.body.messages.length > 2 ? say('Read them: «gut» 🚀.') : call(['read_file', { path: 'notes.md' }]);
    });
    const first = await h.send('Read the notes — «bitte».', { root });
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const fork = async (directive: string) => {
      const started = await sendRequest(h.client.endpoint, forkStart, { sessionId: first.sessionId, directive, forkTurns: 'all', isolation: 'shared', name: directive.slice(0, 20) });
      const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
      assert.equal(done.state, 'completed', done.error);
    };
    await fork('First sibling: summarise the notes.');
    await fork('Second sibling: list the umlauts.');
    await h.send('One more question — «noch eine».', { root, sessionId: first.sessionId });
    await fork('Third fork, after the parent went on.');
    // A turn whose request failed leaves the parent ending with its prompt: a fork's directive joins that
    // user entry in one message (both forks of the parent loaded again from disk).
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: the prompt.\nResult: seen.') : { fault: 'unauthorized' }));
    await h.send('A question the API refuses — «nein».', { root, sessionId: first.sessionId }).catch(() => undefined);
    await killRuntime(h.runtimePid());
    await h.reconnect();
    await fork('Fourth fork, after a refused turn.');
    await fork('Fifth fork, its sibling.');
    return received;
  }

  it('siblings of a parent loaded from disk, and a fork after its next turn, send the SDK\'s bytes with their length', async () => {
    const sdk = await siblingsOfLoadedParent({ FORK_AGENTS_BODY_ENCODER: 'sdk' });
    const ours = await siblingsOfLoadedParent({});
    assert.equal(ours.filter(isForkRequest).length, 5, 'five forks sent');
    assert.equal(ours.length, sdk.length, 'as many requests');
    for (let i = 0; i < sdk.length; i++) {
      assert.equal(ours[i].rawBody, sdk[i].rawBody, `request ${i + 1} differs`);
      // One body of known length, as a Buffer body went: no chunked transfer encoding.
      assert.equal(ours[i].headers['content-length'], String(Buffer.byteLength(ours[i].rawBody)), `request ${i + 1}: content-length`);
      assert.equal(ours[i].headers['transfer-encoding'], undefined, `request ${i + 1}: no transfer-encoding`);
    }
  });
});
