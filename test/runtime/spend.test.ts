// Spending end to end: budgets that pause forks, the per-turn fork cap, costs from recorded usage, and
// the cache explorer naming why a request missed — runtime process + real SDK + fake server.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CacheStep } from '../../src/common/cacheExplorer';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionCache, sessionCancel } from '../../src/common/protocol/runtime';
import type { Usage } from '../../src/common/transcript';
import type { FakeAnthropicOptions, ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const tokens = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
/**
 * Dollars at $3 / $15 per million, written out by hand; the cache prices the setting leaves out follow Sonnet
 * 5.5's own ratios on the pricing page (5 m writes ×1.25, reads ×0.05 since 2026-10-07).
 */
const handCost = (u: Usage) => (u.input_tokens * 3 + u.cache_creation_input_tokens * 3.75 + u.cache_read_input_tokens * 0.15 + u.output_tokens * 15) / 1e6;

describe('runtime: budgets, costs and the cache explorer', function () {
  this.timeout(60_000);
  let h: Harness;
  let parentScript: ScriptedTurn[];
  let forkScript: (r: ReceivedRequest) => ScriptedTurn;

  const setup = async (fake: FakeAnthropicOptions = {}) => {
    h = await startHarness({ fake: { minCacheTokens: 256, ...fake }, config: { prices: { 'claude-sonnet-5-5': { input: 3, output: 15 } } as never } });
    parentScript = [];
    forkScript = () => say('Scope: test.\nResult: done.');
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript(r) : parentScript.shift() ?? say('parent: nothing scripted')));
  };
  afterEach(() => h?.dispose());

  const steps = async (sessionId: string): Promise<CacheStep[]> => (await sendRequest(h.client.endpoint, sessionCache, { sessionId })).steps;

  it('a fork with a token budget pauses in paused (budget) with no request past the limit, and continues once it is raised', async () => {
    await setup();
    parentScript.push(say('Here is the plan.'));
    const parent = await h.send('plan the work');
    const parentTokens = tokens(h.fake.requests[0].usage!);
    // A few requests' worth: the fork keeps asking for tools until its budget stops it.
    const budget = Math.round(parentTokens * 2.5);
    forkScript = () => call(['list_files', { path: '.' }]);
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'list everything', budget: `${budget}tokens` });
    assert.deepEqual(fork.budget, { tokens: budget });
    const paused = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(paused.state, 'paused-budget');
    assert.match(paused.pausedReason!, new RegExp(`budget of ${budget} tokens is reached`));
    const sent = h.fake.requests.filter(isForkRequest);
    const spent = sent.map(r => tokens(r.usage!));
    const total = spent.reduce((a, b) => a + b, 0);
    assert.ok(sent.length >= 2, `several requests fit in ${budget} tokens (${spent.join(', ')})`);
    assert.ok(total >= budget, 'it paused because the budget was reached');
    assert.ok(total - spent[spent.length - 1] < budget, 'no request started once the budget was reached');
    assert.equal(tokens(paused.usage), total, 'the fork counts what the provider reported');
    // Costs come from the recorded usage at the configured price.
    close(paused.cost!.usd, sent.reduce((sum, r) => sum + handCost(r.usage!), 0));
    assert.ok(paused.cost!.uncachedUsd > paused.cost!.usd, 'reading the parent\'s prefix from the cache saved money');
    const before = (await h.transcript(fork.id)).entries.map(e => e.id);

    await assert.rejects(sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, budget: `${budget}tokens` }), /is reached/);
    forkScript = () => say('Scope: listed.\nResult: done.');
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, budget: `${budget * 10}tokens` });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.equal(done.report, 'Scope: listed.\nResult: done.');
    assert.equal(h.fake.requests.filter(isForkRequest).length, sent.length + 1);
    const after = (await h.transcript(fork.id)).entries.map(e => e.id);
    assert.deepEqual(after.slice(0, before.length), before, 'the transcript is intact');
  });

  it('stops a chat turn before the request that would pass fork.budget.perChat, and a fork of that chat pauses', async () => {
    await setup();
    parentScript.push(say('hello'));
    const first = await h.send('first question');
    const budget = Math.round(tokens(h.fake.requests[0].usage!) * 2.5);
    await h.configure({ budgetPerChat: `${budget}tokens` });
    parentScript.push(...Array.from({ length: 10 }, () => call(['list_files', { path: '.' }])));
    const result = await h.send('list files again and again', { sessionId: first.sessionId });
    assert.equal(result.stopReason, 'budget');
    assert.match(result.budgetReason!, new RegExp(`This chat's budget \\(fork.budget.perChat\\) of ${budget} tokens is reached`));
    const spent = h.fake.requests.map(r => tokens(r.usage!));
    const total = spent.reduce((a, b) => a + b, 0);
    assert.ok(total >= budget && total - spent[spent.length - 1] < budget, `no request past the budget (${spent.join(', ')} of ${budget})`);
    // Its forks count against the same budget: a new one pauses before its first request.
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: first.sessionId, directive: 'more', isolation: 'shared' });
    const paused = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(paused.state, 'paused-budget');
    assert.equal(h.fake.requests.filter(isForkRequest).length, 0);
  });

  it('refuses a model-initiated fork beyond fork.maxForksPerTurn with a tool error that says so', async () => {
    await setup();
    await h.configure({ maxForksPerTurn: 3 });
    const agent = (n: number): [string, unknown] => ['Agent', { subagent_type: 'fork', description: `part ${n}`, prompt: `do part ${n}` }];
    parentScript.push(call(agent(1), agent(2), agent(3), agent(4)), say('Started what I could.'));
    const result = await h.send('split the work four ways');
    const { forks } = await sendRequest(h.client.endpoint, forkList, { parentSessionId: result.sessionId });
    assert.deepEqual(forks.map(f => f.name).sort(), ['part 1', 'part 2', 'part 3']);
    const second = h.fake.requests.filter(r => !isForkRequest(r))[1];
    const results = second.body.messages.at(-1).content.filter((b: { type: string }) => b.type === 'tool_result');
    assert.equal(results.length, 4);
    assert.equal(results.slice(0, 3).some((b: { is_error?: boolean }) => b.is_error), false);
    assert.equal(results[3].is_error, true);
    assert.match(results[3].content, /limit of fork\.maxForksPerTurn \(3\)/);
    await Promise.all(forks.map(f => sendRequest(h.client.endpoint, forkWait, { forkId: f.id })));
  });

  it('the cache explorer says a request extended the previous one, then that the cache expired past its TTL', async () => {
    let clock = Date.parse('2026-12-01T10:00:00Z');
    await setup({ now: () => clock });
    parentScript.push(say('one'), say('two'), say('three'));
    const first = await h.send('first question with enough words to be worth caching');
    await h.send('second question', { sessionId: first.sessionId });
    clock += 6 * 60_000;
    await h.send('third question', { sessionId: first.sessionId });
    const [a, b, c] = await steps(first.sessionId);
    assert.equal(a.cause, 'first');
    assert.equal(b.cause, 'extended');
    assert.ok(b.usage.cache_read_input_tokens > 0);
    assert.equal(c.cause, 'expired');
    assert.match(c.detail, /6\.0 min passed since the previous request, longer than the cache lasts \(5 minutes\), so it had expired/);
    // The fake's cache agrees: the third request read nothing.
    assert.equal(h.fake.requests[2].usage!.cache_read_input_tokens, 0);
  });

  for (const [label, change, cause] of [
    ['a changed tool list', (header: any) => (header.tools = header.tools.slice(1)), 'tools'],
    ['a different TTL', (header: any) => (header.settings.cacheTtl = '1h'), 'ttl'],
  ] as const) {
    it(`the cache explorer names ${label} when a session resumes with it`, async () => {
      await setup();
      parentScript.push(say('one'), say('two'));
      const first = await h.send('first question with enough words to be worth caching');
      // The session resumes in a runtime whose header differs (as after an upgrade that changed it).
      await killRuntime(h.runtimePid());
      const file = path.join(h.storeDir, 'sessions', `${first.sessionId}.jsonl`);
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const record = JSON.parse(lines[0]);
      change(record.header);
      lines[0] = JSON.stringify(record);
      fs.writeFileSync(file, lines.join('\n'));
      await h.reconnect();
      await h.send('second question', { sessionId: first.sessionId });
      const [, second] = await steps(first.sessionId);
      assert.equal(second.cause, cause, second.detail);
      assert.equal(h.fake.requests[1].usage!.cache_read_input_tokens, 0, 'the fake read nothing either');
    });
  }

  // The engine's own breakpoints always meet the previous request's write (request.ts marks the user entry
  // before the last assistant run, and a fork's first request the block before its directive), so a
  // lookback miss needs a history that grew by exchanges no request sent: written on disk, as other
  // versions and importers write them.
  it('the cache explorer names a breakpoint beyond the 20-block lookback (a session resumed with 11 exchanges no request sent)', async () => {
    await setup();
    parentScript.push(say('one'), say('two'));
    const first = await h.send('first question with enough words to be worth caching');
    await killRuntime(h.runtimePid());
    const file = path.join(h.storeDir, 'sessions', `${first.sessionId}.jsonl`);
    const entry = (n: number, kind: string, role: string, text: string) =>
      JSON.stringify({ type: 'entry', entry: { id: `e-crafted-${n}`, kind, time: new Date().toISOString(), message: { role, content: [{ type: 'text', text }] } } });
    const crafted = Array.from({ length: 11 }, (_, i) => [entry(2 * i, 'prompt', 'user', `imported question ${i}`), entry(2 * i + 1, 'response', 'assistant', `imported answer ${i}`)]);
    fs.appendFileSync(file, crafted.flat().join('\n') + '\n');
    await h.reconnect();
    await h.send('second question', { sessionId: first.sessionId });
    const [, second] = await steps(first.sessionId);
    assert.equal(second.cause, 'lookback', second.detail);
    assert.match(second.detail, /looks back only 20 parts/);
    const [before, after] = h.fake.requests.map(r => r.usage!);
    assert.ok(after.cache_read_input_tokens < before.cache_read_input_tokens + before.cache_creation_input_tokens,
      `the fake read only the part before the first request's last breakpoint too (${after.cache_read_input_tokens} of ${before.cache_read_input_tokens + before.cache_creation_input_tokens})`);
  });
});

describe('runtime: honest accounting', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());
  const input = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;

  it('counts the input of a stream cut after message_start, and of a cancelled request, in what the session spent', async () => {
    h = await startHarness({ fake: { minCacheTokens: 256, streamDelayMs: 20 } });
    h.fake.enqueue({ fault: 'cut_stream', afterTextChars: 30 });
    const cut = await h.send('first question');
    assert.equal(cut.stopReason, 'error');
    assert.ok(cut.usage.input_tokens + cut.usage.cache_creation_input_tokens > 0, 'the turn reports what the cut attempt was billed');
    // A request cancelled mid-stream: its input was billed too.
    h.fake.enqueue({ content: [{ type: 'text', text: 'a long answer '.repeat(200) }] });
    const streaming = new Promise<void>(resolve => h.fake.onRequest(() => resolve()));
    const sending = h.send('second question', { sessionId: cut.sessionId });
    await streaming;
    await h.waitForEvent(e => e.type === 'text_delta');
    await sendRequest(h.client.endpoint, sessionCancel, { sessionId: cut.sessionId });
    assert.equal((await sending).stopReason, 'cancelled');
    const { spent, entries } = await h.transcript(cut.sessionId);
    assert.equal(entries.filter(e => e.kind === 'response').length, 0, 'neither left a response');
    assert.equal(h.fake.requests.length, 2);
    assert.equal(input(spent!), h.fake.requests.reduce((sum, r) => sum + input(r.usage!), 0), 'both requests\' input is counted');
  });
});

function close(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);
}
