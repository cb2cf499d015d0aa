// Costs from one place on today's default model: the built-in table prices claude-sonnet-5-5, a dollar
// budget works on it, and the chat's answer, the fork's row, the fork list and the transcript show the same
// figure for one fork — also after a restart, when the rows were loaded before fork.prices arrived.
// Runtime process + real SDK + fake server; expected dollars are computed here by hand from what the fake
// reported for each request.
import * as assert from 'node:assert/strict';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { Usage } from '../../src/common/transcript';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
/** Claude Sonnet 5.5 on the pricing page (read 2026-12-01): $2 in, $2.50 5 m writes, $4 1 h writes, $0.10 reads, $10 out. */
const sonnet55 = (u: Usage) => (u.input_tokens * 2 + u.cache_creation_input_tokens * 2.5 + u.cache_read_input_tokens * 0.1 + u.output_tokens * 10) / 1e6;
/** A fork.prices entry of $3 / $15, cache prices left out: Sonnet 5.5's ratios (writes ×1.25, reads ×0.05). */
const setting = (u: Usage) => (u.input_tokens * 3 + u.cache_creation_input_tokens * 3.75 + u.cache_read_input_tokens * 0.15 + u.output_tokens * 15) / 1e6;
const sum = (requests: ReceivedRequest[], price: (u: Usage) => number) => requests.reduce((total, r) => total + price(r.usage!), 0);

describe('runtime: costs from one place on the default model', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const chatAndFork = async (budget?: string) => {
    let forkTurn = 0;
    h.fake.setResponder(r => {
      if (!isForkRequest(r)) return say('Here is the plan for the work ahead.');
      return forkTurn++ === 0 ? call(['list_files', { path: '.' }]) : say('Scope: listed.\nResult: done.');
    });
    const parent = await h.send('plan the work');
    const started = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'list the files', ...(budget ? { budget } : {}) });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
    return { parent, started, done };
  };

  it('prices claude-sonnet-5-5 from the table: the answer, a $0.25 fork budget, the row, the list and the transcript agree', async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 } });
    const { parent, started, done } = await chatAndFork('0.25');
    assert.equal(parent.model, 'claude-sonnet-5-5');
    const [parentRequest] = h.fake.requests.filter(r => !isForkRequest(r));
    assert.ok(parent.cost, 'the answer has a cost for the default model');
    close(parent.cost!.turn.usd, sonnet55(parentRequest.usage!));
    assert.deepEqual(started.budget, { usd: 0.25 }, 'a dollar budget is accepted on the default model');
    assert.equal(done.state, 'completed');
    const forkRequests = h.fake.requests.filter(isForkRequest);
    assert.equal(forkRequests.length, 2);
    const expected = sum(forkRequests, sonnet55);
    close(done.cost!.usd, expected);
    const [row] = (await sendRequest(h.client.endpoint, forkList, {})).forks;
    close(row.cost!.usd, expected);
    const transcript = await h.transcript(started.id);
    assert.equal(transcript.costs!.priceFrom, 'table');
    close(transcript.costs!.total.usd, expected);
    const perEntry = Object.values(transcript.costs!.entries).reduce((total, cost) => total + cost.usd, 0);
    close(perEntry, expected);
    // The chat's next answer counts the fork at its own price.
    const next = await h.send('and now?', { sessionId: parent.sessionId });
    const parentRequests = h.fake.requests.filter(r => !isForkRequest(r));
    close(next.cost!.chat.usd, sum(parentRequests, sonnet55) + expected);
  });

  it('prices forks loaded at start-up once fork.prices arrives: rows, list and transcript show one figure', async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 }, config: { prices: { 'claude-sonnet-5-5': { input: 3, output: 15 } } as never } });
    const { started, done } = await chatAndFork();
    const expected = sum(h.fake.requests.filter(isForkRequest), setting);
    close(done.cost!.usd, expected);
    // A new runtime loads the fork from disk before any client has configured its prices.
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const [row] = (await sendRequest(h.client.endpoint, forkList, {})).forks;
    assert.ok(row.cost, 'the row has the setting\'s price, not "no price known"');
    close(row.cost!.usd, expected);
    const transcript = await h.transcript(started.id);
    assert.equal(transcript.costs!.priceFrom, 'setting');
    close(transcript.costs!.total.usd, expected);
  });
});

describe('runtime: the model table decides the context window', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  it('measures each session against its model\'s window when fork.contextWindow is unset, and against the setting when set', async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 } });
    h.fake.setResponder(() => say('ok'));
    const windows = () => h.events.flatMap(e => (e.event.type === 'usage' && !e.event.billedOnly ? [e.event.contextWindow] : []));
    await h.send('hello', { model: 'claude-sonnet-5-5' });
    await h.send('hello', { model: 'claude-haiku-4-5' });
    // Sonnet 5.5: 1M (its overview); Haiku 4.5: 200K (the comparison tables on the 5.x pages).
    assert.deepEqual(windows(), [1_000_000, 200_000]);
    await h.configure({ contextWindow: 50_000 });
    await h.send('hello again', { model: 'claude-sonnet-5-5' });
    assert.equal(windows()[2], 50_000);
  });
});

function close(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);
}
