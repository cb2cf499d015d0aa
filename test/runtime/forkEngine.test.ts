// The fork engine in compacted, long and unusual sessions. Real runtime process + real SDK +
// the fake API (which records every request and simulates the prompt cache) + a temp git repository.
// Each case checks the bytes actually sent and the fake's cache figures.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams } from '../../src/common/protocol/forks';
import { sessionCompact } from '../../src/common/protocol/runtime';
import type { Usage } from '../../src/common/transcript';
import { INTERRUPTED_RESULT } from '../../src/runtime/fork/revive';
import { NESTED_FORK_ERROR } from '../../src/runtime/fork/history/directive';
import type { FakeAnthropicOptions, ReceivedRequest, Responder } from '../fakes/anthropicServer';
import { initRepo } from './gitRepo';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const PAD = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. ';
const pad = (tokens: number) => PAD.repeat(Math.ceil((tokens * 4) / PAD.length));
const isFork = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const isSummary = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');
const directiveOf = (word: string) => (r: ReceivedRequest) => r.rawBody.includes(`DIRECTIVE: ${word}`);
const total = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
const share = (u: Usage) => u.cache_read_input_tokens / total(u);
const noCc = (value: unknown) => JSON.parse(JSON.stringify(value, (k, v) => (k === 'cache_control' ? undefined : v)));
/** Positions of cache_control in a request: "system", "m<i>.<j>". */
const breakpoints = (body: any): string[] => [
  ...body.system.flatMap((b: any, i: number) => (b.cache_control ? [`system.${i}`] : [])),
  ...body.messages.flatMap((m: any, i: number) => m.content.flatMap((b: any, j: number) => (b.cache_control ? [`m${i}.${j}`] : []))),
];
const lastText = (r: ReceivedRequest): string => {
  const last = r.body.messages[r.body.messages.length - 1];
  return last.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('');
};
export const measured: Record<string, number> = {};

describe('runtime: fork engine in compacted, long and unusual sessions', function () {
  this.timeout(60_000);
  let h: Harness;
  let responder: Responder;

  const begin = async (fake: FakeAnthropicOptions = { minCacheTokens: 256 }, files: Record<string, string> = {}) => {
    h = await startHarness({ fake });
    initRepo(h.root, { 'README.md': 'A test repository.\n', ...files });
    responder = () => say('nothing scripted');
    h.fake.setResponder(r => responder(r));
  };
  afterEach(() => h?.dispose());

  const start = (params: Partial<ForkStartParams> & { sessionId: string }) =>
    sendRequest(h.client.endpoint, forkStart, { directive: 'check', isolation: 'shared', ...params });
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });
  const requestsOf = (pred: (r: ReceivedRequest) => boolean) => h.fake.requests.filter(pred);

  it('1: an all fork of a compacted chat repeats the parent\'s [startup, summary, …] request and reads ≥ 90% from cache', async () => {
    await begin();
    responder = r => (isSummary(r) ? say(`SUMMARY: ${pad(4000)}`) : isFork(r) ? say('Scope: x') : say(`answer to ${lastText(r).slice(0, 20)}`));
    let sessionId = (await h.send('question 1')).sessionId;
    await h.send('question 2', { sessionId });
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    await h.send('question 3', { sessionId });
    const parentLatest = requestsOf(r => !isFork(r) && !isSummary(r)).at(-1)!;
    const fork = await start({ sessionId, directive: 'compacted' });
    assert.equal((await wait(fork.id)).state, 'completed');
    const first = requestsOf(directiveOf('compacted'))[0];
    measured.compactedAllShare = share(first.usage!);
    assert.equal(first.outcome, 'completed');
    const head = first.body.messages[0].content;
    assert.match(head[0].text, /^<system-reminder>\nWorkspace root/, 'startup first');
    assert.match(head[1].text, /SUMMARY:/, 'then the summary');
    const n = parentLatest.body.messages.length;
    // The parent's latest request ended with its answer; the fork's inherits that answer after it.
    assert.deepEqual(noCc(first.body.messages.slice(0, n - 1)), noCc(parentLatest.body.messages.slice(0, n - 1)));
    assert.deepEqual(noCc(first.body.messages[n - 1].content.slice(0, parentLatest.body.messages[n - 1].content.length)), noCc(parentLatest.body.messages[n - 1].content));
    assert.ok(share(first.usage!) >= 0.9, `cache read share ${share(first.usage!).toFixed(3)}`);
    // After a restart the fork is loaded from disk: continued, it still sends [startup, summary, …].
    await killRuntime(h.runtimePid());
    await h.reconnect();
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'one more thing' });
    assert.equal((await wait(fork.id)).state, 'completed');
    const continued = requestsOf(directiveOf('compacted')).at(-1)!;
    assert.notEqual(continued, first);
    assert.match(continued.body.messages[0].content[0].text, /^<system-reminder>\nWorkspace root/);
    assert.match(continued.body.messages[0].content[1].text, /SUMMARY:/);
    assert.deepEqual(noCc(continued.body.messages.slice(0, first.body.messages.length)), noCc(first.body.messages));
    sessionId = '';
  });

  it('2: a fork whose closing answers the last inherited call auto-compacts with a valid summary request', async () => {
    await begin(undefined);
    await h.configure({ contextWindow: 4000, autoCompactAt: 0.8 });
    let parentTurn = 0;
    responder = r => {
      if (isSummary(r)) return say('SUMMARY: short');
      if (isFork(r)) return say('Scope: compacted fork');
      return parentTurn++ === 0 ? call(['Agent', { subagent_type: 'fork', description: 'big', prompt: `big ${pad(2200)}` }]) : say('started');
    };
    const result = await h.send('start a big fork');
    const [fork] = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: result.sessionId })).forks;
    const done = await wait(fork.id);
    const summaries = requestsOf(isSummary);
    assert.ok(summaries.length >= 1, 'the fork compacted');
    for (const s of summaries) assert.equal(s.outcome, 'completed', `summary request valid: ${s.error ?? ''}`);
    assert.equal(done.state, 'completed', done.error);
    const after = requestsOf(isFork).at(-1)!;
    assert.equal(after.outcome, 'completed');
    assert.match(JSON.stringify(after.body.messages), /SUMMARY: short/);
  });

  it('3: session/send on a fork is refused, naming fork send; a transcript with the boilerplate cannot fork', async () => {
    await begin();
    responder = r => (isFork(r) ? say('Scope: x') : say('ok'));
    const { sessionId } = await h.send('hello');
    const fork = await start({ sessionId });
    await wait(fork.id);
    const before = h.fake.requests.length;
    await assert.rejects(h.send('act as parent now', { sessionId: fork.id }), /is a fork: continue it with fork\/send/);
    assert.equal(h.fake.requests.length, before, 'nothing was sent');
    // A parent whose history carries the boilerplate is a fork's transcript: its Agent call does not fork.
    let turn = 0;
    responder = () => (turn++ === 0 ? call(['Agent', { subagent_type: 'fork', description: 'nested', prompt: 'nested' }]) : say('done'));
    const pasted = await h.send('<fork-boilerplate>\nYou are a forked worker\n</fork-boilerplate>\nDIRECTIVE: go');
    const forks = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: pasted.sessionId })).forks;
    assert.equal(forks.length, 0, 'no grandchild fork');
    assert.ok(h.fake.requests.at(-1)!.rawBody.includes(JSON.stringify(NESTED_FORK_ERROR).slice(1, -1)), 'the call got the nested-fork error');
  });

  it('4: a fork with 25 unanswered calls reads its second request from cache', async () => {
    await begin();
    const reads = Array.from({ length: 24 }, (_, i) => ['list_files', { path: `.`, note: `n${i}` }] as [string, unknown]);
    let parentTurn = 0;
    let forkTurn = 0;
    responder = r => {
      if (isFork(r)) return forkTurn++ === 0 ? call(['read_file', { path: 'README.md' }]) : say('Scope: wide');
      return parentTurn++ === 0 ? call(['Agent', { subagent_type: 'fork', description: 'wide', prompt: 'wide' }], ...reads) : say('done');
    };
    const result = await h.send(`fan out ${pad(1500)}`);
    const [fork] = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: result.sessionId })).forks;
    assert.equal((await wait(fork.id)).state, 'completed');
    const [first, second] = requestsOf(isFork);
    const closing = first.body.messages.at(-1).content;
    assert.equal(closing.filter((b: any) => b.type === 'tool_result').length, 25);
    assert.ok(breakpoints(first.body).length <= 4 && breakpoints(second.body).length <= 4, 'at most four breakpoints');
    measured.wideSecondShare = share(second.usage!);
    // Everything the first request had cached (read or written) is read by the second; only the directive
    // block after the first request's last breakpoint (its length depends on the worktree notice) is new.
    const cachedByFirst = first.usage!.cache_read_input_tokens + first.usage!.cache_creation_input_tokens;
    assert.ok(second.usage!.cache_read_input_tokens >= cachedByFirst, `second request reads the first: ${JSON.stringify(second.usage)} vs ${JSON.stringify(first.usage)}`);
  });

  it('5: the second of two siblings started together waits for the first\'s response and reads ≥ 90%', async () => {
    await begin({ minCacheTokens: 256, firstEventDelayMs: 300 });
    responder = r => (isFork(r) ? say('Scope: sibling') : say(`answer ${pad(1500)}`));
    const { sessionId } = await h.send('turn 1');
    for (let n = 2; n <= 4; n++) await h.send(`turn ${n}`, { sessionId });
    const [a, b] = await Promise.all([start({ sessionId, directive: 'alpha', forkTurns: '2' }), start({ sessionId, directive: 'beta', forkTurns: '2' })]);
    await Promise.all([wait(a.id), wait(b.id)]);
    const firsts = requestsOf(isFork);
    assert.equal(firsts.length, 2);
    const later = firsts[1];
    measured.staggerFirstShare = share(firsts[0].usage!);
    measured.staggerSecondShare = share(later.usage!);
    assert.ok(share(later.usage!) >= 0.9, `second sibling read share ${share(later.usage!).toFixed(3)}`);
  });

  it('6: Fork from here on a message from before a compaction forks from the committed history', async () => {
    await begin();
    responder = r => (isSummary(r) ? say('SUMMARY: s') : isFork(r) ? say('Scope: old point') : say(`answer ${pad(600)}`));
    const first = await h.send('very first question');
    const { sessionId } = first;
    await h.send('second', { sessionId });
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    const fork = await start({ sessionId, atEntryId: first.lastEntryId, directive: 'from the start' });
    assert.equal((await wait(fork.id)).state, 'completed');
    const sent = requestsOf(directiveOf('from the start'))[0];
    const parentFirst = h.fake.requests[0];
    assert.deepEqual(noCc(sent.body.messages[0]), noCc(parentFirst.body.messages[0]), 'the same first message as the parent\'s first request');
    assert.ok(!sent.rawBody.includes('SUMMARY') && !sent.rawBody.includes('"second"'));
    assert.ok(sent.usage!.cache_read_input_tokens > 0);
  });

  it('7: every trailing unanswered prompt is dropped; an answered one is kept; "1" keeps one real turn', async () => {
    await begin();
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    responder = async r => {
      if (isFork(r)) return say('Scope: trailing');
      if (lastText(r).includes('q1')) return { fault: 'unauthorized' };
      if (lastText(r).includes('q2')) {
        await gate;
        return say('late answer');
      }
      return say('answer zero');
    };
    const zero = await h.send('q0 answered');
    const { sessionId } = zero;
    await h.send('q1 fails', { sessionId });
    const inFlight = h.send('q2 in flight', { sessionId });
    await new Promise<void>(resolve => { const off = h.fake.onRequest(r => { if (lastText(r).includes('q2')) { off(); resolve(); } }); if (h.fake.requests.some(r => lastText(r).includes('q2'))) resolve(); });
    const all = await start({ sessionId, directive: 'all-trailing' });
    const one = await start({ sessionId, directive: 'one-trailing', forkTurns: '1' });
    const transcript = await h.transcript(sessionId);
    const q0 = transcript.entries.find(e => e.kind === 'prompt' && JSON.stringify(e.message).includes('q0 answered'))!;
    const here = await start({ sessionId, directive: 'here-trailing', atEntryId: q0.id });
    await Promise.all([all, one, here].map(f => wait(f.id)));
    release();
    await inFlight;
    for (const word of ['all-trailing', 'one-trailing']) {
      const sent = requestsOf(directiveOf(word))[0].rawBody;
      assert.ok(!sent.includes('q1 fails') && !sent.includes('q2 in flight'), `${word}: no unanswered prompt`);
      assert.ok(sent.includes('q0 answered'), `${word}: the answered turn is there`);
    }
    assert.ok(requestsOf(directiveOf('here-trailing'))[0].rawBody.includes('q0 answered'), 'Fork from here on an answered prompt keeps it');
  });

  it('8: a numeric window that would start at a tool_results + text entry starts at the call they answer', async () => {
    await begin();
    responder = r => (isFork(r) ? say('Scope: window') : say('ok'));
    const { sessionId } = await h.send('seed');
    // A transcript holding a user entry of tool results plus text (as other versions and importers write
    // them): built on disk from the real session's header and startup entry, then loaded by the runtime.
    const [headerLine, startupLine] = fs.readFileSync(path.join(h.storeDir, 'sessions', `${sessionId}.jsonl`), 'utf8').split('\n');
    const header = JSON.parse(headerLine);
    const id = `${sessionId.slice(0, -4)}beef`;
    header.header.id = id;
    const entry = (n: number, kind: string, role: string, content: unknown[]) =>
      JSON.stringify({ type: 'entry', entry: { id: `e-crafted-${n}`, kind, time: new Date().toISOString(), message: { role, content } } });
    fs.writeFileSync(path.join(h.storeDir, 'sessions', `${id}.jsonl`), [
      JSON.stringify(header), startupLine,
      entry(1, 'prompt', 'user', [{ type: 'text', text: 'list the files' }]),
      entry(2, 'response', 'assistant', [{ type: 'tool_use', id: 'toolu_crafted', name: 'list_files', input: { path: '.' } }]),
      entry(3, 'tool_results', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_crafted', content: 'README.md' }, { type: 'text', text: 'and then summarise them' }]),
      entry(4, 'response', 'assistant', [{ type: 'text', text: 'There is a README.' }]),
      '',
    ].join('\n'));
    const fork = await start({ sessionId: id, directive: 'window at results', forkTurns: '1' });
    const done = await wait(fork.id);
    const sent = requestsOf(directiveOf('window at results'))[0];
    assert.equal(sent.outcome, 'completed', sent.error);
    assert.equal(done.state, 'completed');
    assert.equal(sent.body.messages[1].content[0].type, 'tool_use', 'the window starts at the call');
    assert.ok(!sent.rawBody.includes('list the files'), 'and not earlier');
  });

  it('9: a parent cut off mid-tool-call is repaired when next sent to', async () => {
    await begin();
    let turn = 0;
    responder = () => (turn++ === 0 ? call(['bash', { command: 'sleep 5' }]) : say('recovered'));
    void h.send('run something slow').catch(() => undefined);
    await h.waitForEvent(e => e.type === 'tool_call');
    const sessionId = h.events[0].sessionId;
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const result = await h.send('are you there?', { sessionId });
    assert.equal(result.stopReason, 'end_turn', result.error?.message);
    const last = h.fake.requests.at(-1)!;
    assert.equal(last.outcome, 'completed');
    assert.ok(last.rawBody.includes(INTERRUPTED_RESULT.slice(0, 40)), 'the interrupted call got a result');
  });

  it('10: a fork keeps the parent\'s thinking config and 1h TTL, from the settings through session creation', async () => {
    await begin();
    await h.configure({ model: 'claude-haiku-4-5', thinkingBudgetTokens: 2048, cacheTtl: '1h' }); // budgets: models that take them
    responder = r => (isFork(r) ? say('Scope: thinking') : say('thought about it'));
    const { sessionId } = await h.send('think');
    const { header } = await h.transcript(sessionId);
    assert.deepEqual({ thinkingBudget: header.settings.thinkingBudget, cacheTtl: header.settings.cacheTtl }, { thinkingBudget: 2048, cacheTtl: '1h' });
    const fork = await start({ sessionId, directive: 'thinking fork' });
    await wait(fork.id);
    const parentReq = h.fake.requests[0];
    const forkReq = requestsOf(directiveOf('thinking fork'))[0];
    assert.deepEqual(forkReq.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(forkReq.body.thinking, parentReq.body.thinking);
    const ttls = (body: any) => JSON.stringify(body).match(/"cache_control":\{[^}]*\}/g)!;
    assert.ok(ttls(forkReq.body).every(cc => cc.includes('"ttl":"1h"')), ttls(forkReq.body).join(' '));
    assert.ok(ttls(parentReq.body).every(cc => cc.includes('"ttl":"1h"')));
    assert.ok(forkReq.usage!.cache_read_input_tokens > 0, 'same TTL: the fork reads the parent\'s entries');
    await assert.rejects(h.configure({ cacheTtl: '2h' as '1h' }), /cacheTtl must be "5m" or "1h"/);
  });

  it('10b: with thinking on a model that strips it, a fork report waits for the next prompt instead of cutting the cached turn', async () => {
    await begin();
    await h.configure({ model: 'claude-haiku-4-5-20251001', thinkingBudgetTokens: 2048 });
    let forkDone!: () => void;
    const forkAnswered = new Promise<void>(resolve => (forkDone = resolve));
    h.fake.onResponse(r => isFork(r) && r.outcome === 'completed' && forkDone());
    let turn = 0;
    responder = async r => {
      if (isFork(r)) return say('Scope: side work');
      turn++;
      if (turn === 1) return call(['Agent', { subagent_type: 'fork', description: 'side', prompt: 'side work' }]);
      if (turn === 2) {
        await forkAnswered;
        return call(['read_file', { path: 'README.md' }]);
      }
      return say(`answer ${turn}`);
    };
    const { sessionId } = await h.send(`work on it ${pad(800)}`);
    const [fork] = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: sessionId })).forks;
    await wait(fork.id);
    const parent = requestsOf(r => !isFork(r));
    const third = parent[2];
    const hasReport = (r: ReceivedRequest) => r.body.messages.some((m: any) => m.content.some((b: any) => b.type === 'text' && b.text.includes('<fork-notification>')));
    assert.ok(!hasReport(third), 'no report beside the tool results');
    assert.ok(third.usage!.cache_read_input_tokens >= total(parent[1].usage!) - 50, `the turn's thinking stays cached: ${JSON.stringify(third.usage)}`);
    await h.send('next question', { sessionId });
    assert.ok(hasReport(h.fake.requests.at(-1)!), 'the report rides with the next prompt');
  });

  it('11: on a 4,096-token-minimum model the shared tools + system + startup prefix caches for numeric forks and subagents', async () => {
    await begin({}, { 'AGENTS.md': `Project rules.\n${pad(3000)}` });
    await h.configure({ model: 'claude-haiku-4-5' });
    let parentTurn = 0;
    responder = r => {
      if (isFork(r)) return say('Scope: window');
      if (r.rawBody.includes('fresh subagent task')) return say('subagent done');
      return parentTurn++ === 2 ? call(['Agent', { subagent_type: 'general-purpose', description: 'sub', prompt: 'fresh subagent task' }]) : say(`reply ${parentTurn}`);
    };
    const { sessionId } = await h.send('first');
    await h.send('second', { sessionId });
    const fork = await start({ sessionId, directive: 'window fork', forkTurns: '1' });
    await wait(fork.id);
    await h.send('now a subagent', { sessionId });
    const windowReq = requestsOf(directiveOf('window fork'))[0];
    const subReq = h.fake.requests.find(r => !isFork(r) && r.body.messages.length === 1 && r.rawBody.includes('fresh subagent task'))!;
    measured.minimumWindowShare = share(windowReq.usage!);
    measured.minimumSubagentShare = share(subReq.usage!);
    assert.ok(windowReq.usage!.cache_read_input_tokens >= 4096, `numeric fork reads the shared prefix: ${JSON.stringify(windowReq.usage)}`);
    assert.ok(subReq.usage!.cache_read_input_tokens >= 4096, `subagent reads the shared prefix: ${JSON.stringify(subReq.usage)}`);
  });

  it('12: a fork continued after its first request failed keeps a breakpoint on its continuation', async () => {
    await begin();
    let forkCalls = 0;
    responder = r => {
      if (!isFork(r)) return say(`parent ${pad(800)}`);
      forkCalls++;
      if (forkCalls === 1) return { fault: 'unauthorized' };
      if (forkCalls === 2) return call(['read_file', { path: 'README.md' }]);
      return say('Scope: continued');
    };
    const { sessionId } = await h.send('hello');
    const fork = await start({ sessionId, directive: 'fails first' });
    assert.equal((await wait(fork.id)).state, 'failed');
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: `please continue ${pad(400)}` });
    assert.equal((await wait(fork.id)).state, 'completed');
    const [, continued, next] = requestsOf(isFork);
    const last = continued.body.messages.at(-1).content.at(-1);
    assert.ok(last.cache_control, 'the continuation prompt carries a breakpoint');
    assert.ok(next.usage!.cache_read_input_tokens >= total(continued.usage!) - 50, `the next request reads it: ${JSON.stringify(next.usage)}`);
  });

  after(() => {
    if (Object.keys(measured).length > 0) {
      fs.mkdirSync('test-results', { recursive: true });
      fs.writeFileSync(path.join('test-results', 'forkEngine-measured.json'), JSON.stringify(measured, null, 2));
    }
  });
});
