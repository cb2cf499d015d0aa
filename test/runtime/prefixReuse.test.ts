// A fork's first request reuses the messages its parent (or a sibling) built (agent/requestPrefix.ts). Probed
// from outside for a stale prefix: after the parent's history changes under it — compacted, rewound, or
// forked with another window or model — the fork's first request must be what a fresh runtime (restarted on
// the same store, so nothing is kept) sends for the same fork: the bytes the fake received, ids aside, and
// each body sent with its own Content-Length.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionRewind } from '../../src/common/protocol/checkpoints';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams } from '../../src/common/protocol/forks';
import { sessionCompact } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { damageTools } from './damage';
import { killRuntime, startHarness, useSharedHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const isSummaryRequest = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');
// Ids the runtime makes anew for each fork (fork, session, entry, tool-use ids) differ between the runs.
const withoutIds = (body: string) => body.replace(/\b(?:f|s|e|fork|toolu)[-_][A-Za-z0-9_-]{6,}/g, '<id>');

describe('runtime: a fork\'s first request after its parent changed is a fresh runtime\'s', function () {
  this.timeout(120_000);
  const h = useSharedHarness();
  let received: ReceivedRequest[];
  const { damageToolResults } = damageTools(() => h);
  const respond = (r: ReceivedRequest) => {
    if (isForkRequest(r)) return say('Scope: the chat.\nResult: seen — «ok» ✓.');
    if (isSummaryRequest(r)) return say('SUMMARY: the user asked numbered questions — «kurz».');
    return say(`Answer ${r.body.messages.length}: «naïve» café 🚀.`);
  };
  beforeEach(async () => {
    received = [];
    h.fake.onRequest(r => received.push(r));
    h.fake.setResponder(respond);
  });

  /** Starts a fork and waits for it; the first request it sent, as the fake received it. */
  async function fork(params: Omit<ForkStartParams, 'isolation' | 'name'>): Promise<ReceivedRequest> {
    const before = received.length;
    const started = await sendRequest(h.client.endpoint, forkStart, { isolation: 'shared', name: params.directive.slice(0, 20), ...params });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
    assert.equal(done.state, 'completed', done.error);
    const first = received.slice(before).find(r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${params.directive}`));
    assert.ok(first, `the fork "${params.directive}" sent a request`);
    return first;
  }

  async function chat(turns: number): Promise<{ sessionId: string; lastEntryIds: string[] }> {
    let sessionId: string | undefined;
    const lastEntryIds: string[] = [];
    for (let n = 1; n <= turns; n++) {
      const result = await h.send(`Question ${n} — «Frage ${n}».`, { root: h.root, ...(sessionId ? { sessionId } : {}) });
      sessionId = result.sessionId;
      lastEntryIds.push(result.lastEntryId!);
    }
    return { sessionId: sessionId!, lastEntryIds };
  }

  /** The same fork again from a runtime that kept nothing: restarted on the same store. */
  async function fresh(params: Omit<ForkStartParams, 'isolation' | 'name'>, then?: () => Promise<void>): Promise<ReceivedRequest> {
    await killRuntime(h.runtimePid());
    await h.reconnect();
    await then?.();
    return fork(params);
  }

  function assertSame(live: ReceivedRequest, cold: ReceivedRequest, what: string) {
    for (const r of [live, cold]) {
      assert.equal(r.headers['content-length'], String(Buffer.byteLength(r.rawBody)), `${what}: content-length`);
      assert.equal(r.headers['transfer-encoding'], undefined, `${what}: no transfer-encoding`);
    }
    assert.equal(withoutIds(live.rawBody), withoutIds(cold.rawBody), `${what}: the kept prefix sent other bytes than a fresh build`);
    // The ids differ but not in length: the two bodies are as long.
    assert.equal(live.headers['content-length'], cold.headers['content-length'], `${what}: as many bytes`);
  }

  it('after /compact, a fork carries the compacted history, as a fresh runtime sends it', async () => {
    const { sessionId } = await chat(3);
    await fork({ sessionId, directive: 'Before the compaction.', forkTurns: 'all' });
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    const live = await fork({ sessionId, directive: 'After the compaction.', forkTurns: 'all' });
    assert.match(live.rawBody, /SUMMARY: the user asked/, 'the fork carries the summary');
    assert.ok(!live.rawBody.includes('Question 2 —'), 'and not the compacted turns');
    assertSame(live, await fresh({ sessionId, directive: 'After the compaction.', forkTurns: 'all' }), 'after compaction');
  });

  it('after a conversation rewind, a fork carries the rewound history, as a fresh runtime sends it', async () => {
    const { sessionId, lastEntryIds } = await chat(3);
    await fork({ sessionId, directive: 'Before the rewind.', forkTurns: 'all' });
    await sendRequest(h.client.endpoint, sessionRewind, { sessionId, atEntryId: lastEntryIds[0], conversation: true });
    const live = await fork({ sessionId, directive: 'After the rewind.', forkTurns: 'all' });
    assert.ok(!live.rawBody.includes('Question 2 —'), 'the rewound turns are not sent');
    assertSame(live, await fresh({ sessionId, directive: 'After the rewind.', forkTurns: 'all' }), 'after rewind');
  });

  it('after a rewind and as many new entries as before, a fork carries the new turns', async () => {
    const { sessionId, lastEntryIds } = await chat(3);
    await fork({ sessionId, directive: 'Before the rewind.', forkTurns: 'all' });
    await sendRequest(h.client.endpoint, sessionRewind, { sessionId, atEntryId: lastEntryIds[0], conversation: true });
    for (const n of [7, 8]) await h.send(`Other question ${n}.`, { root: h.root, sessionId });
    const live = await fork({ sessionId, directive: 'After the new turns.', forkTurns: 'all' });
    assert.ok(live.rawBody.includes('Other question 8.') && !live.rawBody.includes('Question 2 —'));
    assertSame(live, await fresh({ sessionId, directive: 'After the new turns.', forkTurns: 'all' }), 'after rewind and new turns');
  });

  // More than twice the 8 entries compared at each end (agent/requestPrefix.ts): the same count again, the
  // same first entries, new ones after the rewind point.
  it('a long chat rewound to its middle and continued to the same length, then forked', async () => {
    const { sessionId, lastEntryIds } = await chat(10);
    await fork({ sessionId, directive: 'Before the rewind.', forkTurns: 'all' });
    await sendRequest(h.client.endpoint, sessionRewind, { sessionId, atEntryId: lastEntryIds[5], conversation: true });
    for (const n of [7, 8, 9, 10]) await h.send(`Other question ${n}.`, { root: h.root, sessionId });
    const live = await fork({ sessionId, directive: 'After the new turns.', forkTurns: 'all' });
    assert.ok(live.rawBody.includes('Other question 10.') && !live.rawBody.includes('Question 7 —') && live.rawBody.includes('Question 6 —'));
    assertSame(live, await fresh({ sessionId, directive: 'After the new turns.', forkTurns: 'all' }), 'long chat rewound');
  });

  // A fork's fork fills its parent's slot (agent/loop.ts requestHome); until 2026-12-02 it shared its
  // grandparent's. The grandparent's next request covers as many entries as the grandchild's first — its
  // history plus a prompt, against the same history plus the child's directive — with the same model and
  // marks: had they shared a slot, only the entries at the ends would tell them apart. More than twice 8
  // entries, so the last ones are what differs.
  it('a fork of a fork after its grandparent\'s next turn, over a history of more than 16 entries', async () => {
    const { sessionId } = await chat(9);
    const child = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'The child.', forkTurns: 'all', isolation: 'shared', name: 'child' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: child.id })).state, 'completed');
    await h.send('Question 10 — «Frage 10».', { root: h.root, sessionId });
    const grandchild = await fork({ sessionId: child.id, directive: 'The grandchild.', forkTurns: 'all' });
    assert.ok(grandchild.rawBody.includes('DIRECTIVE: The child.') && !grandchild.rawBody.includes('Question 10 —'), 'the child\'s history, not the grandparent\'s');
    assertSame(grandchild, await fresh({ sessionId: child.id, directive: 'The grandchild.', forkTurns: 'all' }), 'grandchild after the next turn');
  });

  it('a fork of a fork, after an `all` fork of the parent', async () => {
    const { sessionId } = await chat(2);
    const child = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'The child.', forkTurns: 'all', isolation: 'shared', name: 'child' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: child.id })).state, 'completed');
    await fork({ sessionId, directive: 'A sibling of the child.', forkTurns: 'all' });
    const grandchild = await fork({ sessionId: child.id, directive: 'The grandchild.', forkTurns: 'all' });
    await fork({ sessionId, directive: 'Another sibling.', forkTurns: 'all' });
    assertSame(grandchild, await fresh({ sessionId: child.id, directive: 'The grandchild.', forkTurns: 'all' }), 'grandchild');
  });

  // A damaged transcript line in the middle of a long history: loaded again, the lost tool results are
  // closed with an error result. A sibling then reuses what the first fork built over the repaired history.
  it('siblings over a transcript repaired on load, in the middle of more than 16 entries', async () => {
    fs.writeFileSync(path.join(h.root, 'notes.txt'), 'the notes say 42');
    const { sessionId } = await chat(2);
    h.fake.setResponder(r => (r.body.messages.at(-1)?.content?.some?.((b: { type: string }) => b.type === 'tool_result') ? say('read it') : call(['read_file', { path: 'notes.txt' }])));
    await h.send('Read the notes.', { root: h.root, sessionId });
    h.fake.setResponder(respond);
    for (let n = 3; n <= 9; n++) await h.send(`Question ${n} — «Frage ${n}».`, { root: h.root, sessionId });
    await fork({ sessionId, directive: 'Before the damage.', forkTurns: 'all' });
    await killRuntime(h.runtimePid());
    damageToolResults(sessionId);
    await h.reconnect();
    await fork({ sessionId, directive: 'First sibling.', forkTurns: 'all' });
    const live = await fork({ sessionId, directive: 'Second sibling.', forkTurns: 'all' });
    assert.match(live.rawBody, /was damaged/, 'the repaired result is sent');
    assertSame(live, await fresh({ sessionId, directive: 'Second sibling.', forkTurns: 'all' }), 'repaired transcript');
  });

  it('a fork on another model, and one after the client\'s TTL and effort changed, after an `all` fork', async () => {
    const { sessionId } = await chat(2);
    await fork({ sessionId, directive: 'On the parent\'s model.', forkTurns: 'all' });
    const other = await fork({ sessionId, directive: 'On another model.', forkTurns: 'all', model: 'claude-opus-5-5' });
    await h.configure({ cacheTtl: '1h', effort: 'low' });
    const later = await fork({ sessionId, directive: 'After new settings.', forkTurns: 'all' });
    assertSame(other, await fresh({ sessionId, directive: 'On another model.', forkTurns: 'all', model: 'claude-opus-5-5' }), 'another model');
    assertSame(later, await fresh({ sessionId, directive: 'After new settings.', forkTurns: 'all' }, () => h.configure({ cacheTtl: '1h', effort: 'low' })), 'after new settings');
  });

  it('a fork with a narrowed window right after an `all` fork, and an `all` fork after it', async () => {
    const { sessionId } = await chat(4);
    await fork({ sessionId, directive: 'All of it.', forkTurns: 'all' });
    const narrow = await fork({ sessionId, directive: 'Two turns.', forkTurns: '2' });
    assert.ok(!narrow.rawBody.includes('Question 2 —') && narrow.rawBody.includes('Question 4 —'));
    const all = await fork({ sessionId, directive: 'All again.', forkTurns: 'all' });
    assertSame(narrow, await fresh({ sessionId, directive: 'Two turns.', forkTurns: '2' }), 'narrowed window');
    assertSame(all, await fresh({ sessionId, directive: 'All again.', forkTurns: 'all' }), 'all after narrowed');
  });
});

// With preserved thinking (each block bound to the exact prefix before it): a narrowed window leaves the
// window's thinking out, compaction drops it; the kept prefix must not carry the blocks of the history before.
describe('runtime: a thinking parent\'s forks after a narrowed fork and a compaction are a fresh runtime\'s', function () {
  this.timeout(120_000);
  let h: Harness;
  afterEach(async () => h.dispose());

  it('all, --turns 1, all, then /compact and all: each first request as a restarted runtime sends it', async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 }, config: { model: 'claude-opus-5-5' } });
    fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n'.repeat(40));
    const turns: ReturnType<typeof say>[] = [];
    h.fake.setResponder(r => (isSummaryRequest(r) ? say('SUMMARY: the word is pelican.') : isForkRequest(r) ? say('Scope: test.\nResult: done.') : turns.shift() ?? say('extra')));
    let sessionId: string | undefined;
    for (let turn = 1; turn <= 3; turn++) {
      turns.push(
        { content: [{ type: 'thinking', thinking: `Turn ${turn}: read notes.md first.` }, { type: 'tool_use', name: 'read_file', input: { path: 'notes.md' } }] },
        { content: [{ type: 'thinking', thinking: 'The file answers it.' }, { type: 'text', text: 'The word is pelican.' }] },
      );
      const result = await h.send(`What is the secret word? (turn ${turn})`, sessionId ? { sessionId } : {});
      sessionId = result.sessionId;
      assert.equal(result.stopReason, 'end_turn', JSON.stringify(result.error));
    }
    const forkOf = async (directive: string, forkTurns: string): Promise<ReceivedRequest> => {
      const started = await sendRequest(h.client.endpoint, forkStart, { sessionId: sessionId!, directive, forkTurns, isolation: 'shared' });
      const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
      assert.equal(done.state, 'completed', JSON.stringify(done));
      return h.fake.requests.find(r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${directive}`))!;
    };
    const restarted = async () => {
      await killRuntime(h.runtimePid());
      await h.reconnect();
    };
    const live = [await forkOf('All one.', 'all'), await forkOf('One turn.', '1'), await forkOf('All two.', 'all')];
    const cold: ReceivedRequest[] = [];
    const coldFork = async (directive: string, forkTurns: string) => {
      await restarted();
      const before = h.fake.requests.length;
      await forkOf(directive, forkTurns);
      cold.push(h.fake.requests.slice(before).find(r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${directive}`))!);
    };
    for (const [directive, forkTurns] of [['All one.', 'all'], ['One turn.', '1'], ['All two.', 'all']]) await coldFork(directive, forkTurns);
    // The runtime keeps the prefix the last fork built; the compaction comes after it.
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId: sessionId! });
    live.push(await forkOf('After compaction.', 'all'));
    assert.match(live[3].rawBody, /SUMMARY: the word is pelican/);
    await coldFork('After compaction.', 'all');
    assert.ok(live.every(r => r.status === 200) && cold.every(r => r.status === 200), 'every fork request accepted');
    for (let i = 0; i < live.length; i++) {
      assert.equal(live[i].headers['content-length'], String(Buffer.byteLength(live[i].rawBody)), `fork ${i + 1}: content-length`);
      assert.equal(withoutIds(live[i].rawBody), withoutIds(cold[i].rawBody), `fork ${i + 1}: the kept prefix sent other bytes than a fresh build`);
    }
  });
});
