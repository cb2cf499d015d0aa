// Context accounting and compaction, automatic and on demand, and the fork rules for summaries.
import * as assert from 'node:assert/strict';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { RuntimeErrorCode, sessionCompact } from '../../src/common/protocol/runtime';
import { buildRequestBody } from '../../src/runtime/agent/request';
import { requestViewOf } from '../../src/common/requestView';
import { MANUAL_COMPACT_RETRIES } from '../../src/runtime/handlers/compact';
import type { Fault, ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { killRuntime, useSharedHarness } from './harness';
import { say } from './script';

const isSummaryRequest = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');
const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const PADDING = 'lorem ipsum dolor sit amet '.repeat(120);

describe('runtime: compaction', function () {
  this.timeout(30_000);
  // A small window so a few turns cross the 80% threshold.
  const h = useSharedHarness({ config: { contextWindow: 6000, autoCompactAt: 0.8 } });
  let summaries: (ScriptedTurn | Fault)[];

  beforeEach(async () => {
    summaries = [];
    h.fake.setResponder(r => {
      if (isSummaryRequest(r)) return summaries.shift() ?? say('SUMMARY: the user asked questions 1..n; nothing is open.');
      if (isForkRequest(r)) return say('Scope: fork report');
      return say(`answer to: ${lastText(r)} ${PADDING}`);
    });
  });

  const ask = async (sessionId: string | undefined, n: number) => (await h.send(`question ${n}`, { sessionId })).sessionId;

  it('compacts automatically past the threshold and keeps working with startup + summary + recent entries', async () => {
    let sessionId: string | undefined;
    for (let n = 1; n <= 6; n++) sessionId = await ask(sessionId, n);
    const compactions = h.events.filter(e => e.event.type === 'compaction');
    assert.ok(compactions.length >= 1, 'compacted at least once');
    const summaryAt = h.fake.requests.findIndex(isSummaryRequest);
    const after = h.fake.requests[summaryAt + 1];
    assert.equal(after.outcome, 'completed', 'the next request is valid');
    const messages = after.body.messages;
    assert.equal(messages.length, 1, 'startup, summary and the current prompt make one user message');
    const texts = messages[0].content.map((b: { text: string }) => b.text);
    assert.match(texts[0], /^<system-reminder>\nWorkspace root/);
    assert.match(texts[1], /SUMMARY: the user asked/);
    assert.match(texts[2], /^question \d$/);
    assert.ok(!JSON.stringify(messages).includes('answer to: question 1'), 'compacted history is not sent');
    const usage = h.events.filter(e => e.event.type === 'usage').map(e => e.event.type === 'usage' && e.event.contextWindow);
    assert.ok(usage.every(w => w === 6000), 'usage events carry the window');
    const { entries } = await h.transcript(sessionId!);
    assert.ok(entries.some(e => e.message.content.some(b => b.type === 'text' && b.text === 'question 1')), 'the transcript still has everything');
  });

  it('compacts on demand; a fork with all carries the summary, a fork with 2 holds only the last two turns after it', async () => {
    await h.configure({ contextWindow: 1_000_000 });
    let sessionId: string | undefined;
    for (let n = 1; n <= 2; n++) sessionId = await ask(sessionId, n);
    const compacted = await sendRequest(h.client.endpoint, sessionCompact, { sessionId: sessionId!, focus: 'the questions' });
    assert.match(compacted.summaryEntryId, /^e-/);
    assert.match(h.fake.requests.filter(isSummaryRequest)[0].rawBody, /Focus especially on: the questions/);
    for (let n = 3; n <= 5; n++) await ask(sessionId, n);
    const all = await sendRequest(h.client.endpoint, forkStart, { sessionId: sessionId!, directive: 'all of it' });
    const two = await sendRequest(h.client.endpoint, forkStart, { sessionId: sessionId!, directive: 'two turns', forkTurns: '2' });
    await Promise.all([all, two].map(f => sendRequest(h.client.endpoint, forkWait, { forkId: f.id })));
    const sentAll = JSON.stringify(h.fake.requests.find(r => isForkRequest(r) && r.rawBody.includes('DIRECTIVE: all of it'))!.body.messages);
    const sentTwo = JSON.stringify(h.fake.requests.find(r => isForkRequest(r) && r.rawBody.includes('DIRECTIVE: two turns'))!.body.messages);
    assert.ok(sentAll.includes('SUMMARY: the user asked') && sentAll.includes('question 3') && !sentAll.includes('"question 1"'));
    // Order and cache: startup, then summary, as the parent sent them, so the fork's prefix is read from the
    // cache (docs/design.md §4.5).
    const allRequest = h.fake.requests.find(r => isForkRequest(r) && r.rawBody.includes('DIRECTIVE: all of it'))!;
    const head = allRequest.body.messages[0].content;
    assert.match(head[0].text, /^<system-reminder>\nWorkspace root/);
    assert.match(head[1].text, /SUMMARY: the user asked/);
    const parentLast = h.fake.requests.filter(r => !isForkRequest(r) && !isSummaryRequest(r)).at(-1)!;
    assert.deepEqual(JSON.parse(JSON.stringify(allRequest.body.messages[0])), parentLast.body.messages[0], 'the first message repeats the parent\'s');
    assert.ok(allRequest.usage!.cache_read_input_tokens > 0, 'and is read from the cache');
    assert.ok(!sentTwo.includes('SUMMARY'), 'a numeric window never includes the summary');
    assert.equal(two.summaryExcluded, true, 'and its summary says so, for the editor to tell the user');
    assert.equal(all.summaryExcluded, undefined);
    assert.ok(sentTwo.includes('question 4') && sentTwo.includes('question 5') && !sentTwo.includes('question 3'));
  });

  it('rebuilds the same request view after a reload', async () => {
    await h.configure({ contextWindow: 1_000_000 });
    let sessionId: string | undefined;
    for (let n = 1; n <= 2; n++) sessionId = await ask(sessionId, n);
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId: sessionId! });
    await ask(sessionId, 3);
    await killRuntime(h.runtimePid());
    await h.reconnect();
    await ask(sessionId, 4);
    const sent = h.fake.requests.at(-1)!.body.messages;
    const { header, entries } = await h.transcript(sessionId!);
    // The request the reloaded runtime sent is the request view of the history on disk (without its answer).
    const view = requestViewOf(entries.slice(0, -1));
    const strip = (m: unknown) => JSON.parse(JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v)));
    assert.deepEqual(strip(sent), strip(buildRequestBody(header, view).messages));
    assert.match(JSON.stringify(sent), /SUMMARY: the user asked/);
    assert.ok(!JSON.stringify(sent).includes('"question 1"'));
    assert.ok(buildRequestBody(header, entries).messages.length > sent.length, 'the full history is longer than the request view');
  });

  it('leaves the session usable and uncompacted when the summary request fails', async () => {
    await h.configure({ contextWindow: 1_000_000 });
    const sessionId = await ask(undefined, 1);
    // Rate limited on the first attempt and every retry (retry-after: 0, so no waiting here).
    summaries.push(...Array.from({ length: MANUAL_COMPACT_RETRIES + 1 }, (): Fault => ({ fault: 'rate_limit', retryAfterSeconds: 0 })));
    await assert.rejects(sendRequest(h.client.endpoint, sessionCompact, { sessionId }), (e: { code?: number; message: string }) =>
      e.code === RuntimeErrorCode.compactFailed && /Compaction failed; the session is unchanged and still usable\. Rate limited \(429\)/.test(e.message));
    assert.equal(h.fake.requests.filter(isSummaryRequest).length, MANUAL_COMPACT_RETRIES + 1, 'retried like a model request');
    const { entries } = await h.transcript(sessionId);
    assert.ok(!entries.some(e => e.kind === 'summary'));
    await ask(sessionId, 2);
    assert.ok(JSON.stringify(h.fake.requests.at(-1)!.body.messages).includes('answer to: question 1'));
  });

  it('retries a summary request that was rate limited or hit a server error, then compacts', async () => {
    await h.configure({ contextWindow: 1_000_000 });
    const sessionId = await ask(undefined, 1);
    summaries.push({ fault: 'rate_limit', retryAfterSeconds: 0 }, { fault: 'overloaded', retryAfterSeconds: 0 });
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    assert.equal(h.fake.requests.filter(isSummaryRequest).length, 3);
    const { entries } = await h.transcript(sessionId);
    assert.equal(entries.filter(e => e.kind === 'summary').length, 1);
  });
});


function lastText(r: ReceivedRequest): string {
  const last = r.body.messages[r.body.messages.length - 1];
  return last.content.filter((b: { type: string }) => b.type === 'text').map((b: { text: string }) => b.text).at(-1) ?? '';
}
