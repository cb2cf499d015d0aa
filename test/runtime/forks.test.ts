// The fork engine end to end (docs/design.md §4): runtime process + real SDK + fake server with cache simulation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams } from '../../src/common/protocol/forks';
import { FORK_STARTED_RESULT, NESTED_FORK_ERROR } from '../../src/runtime/fork/history/directive';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { killedMidFork, REVIVED_REPORT } from './killedMidFork';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const lastUserText = (r: ReceivedRequest): string => {
  const last = r.body.messages[r.body.messages.length - 1];
  return last.content.filter((b: { type: string }) => b.type === 'text').map((b: { text: string }) => b.text).join('');
};

describe('runtime: forks', function () {
  this.timeout(30_000);
  let h: Harness;
  let parentScript: ScriptedTurn[];
  let forkScript: (r: ReceivedRequest) => ScriptedTurn;

  beforeEach(async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 } });
    fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n');
    parentScript = [];
    forkScript = () => say('Scope: test.\nResult: done.');
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript(r) : parentScript.shift() ?? say('parent: nothing scripted')));
  });
  afterEach(() => h.dispose());

  const start = (params: Partial<ForkStartParams> & { sessionId: string }) =>
    sendRequest(h.client.endpoint, forkStart, { directive: 'check the notes', ...params });
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });

  it('a model-initiated fork mid-turn inherits the current request and the tool results so far', async () => {
    parentScript.push(
      call(['read_file', { path: 'notes.md' }]),
      call(['Agent', { subagent_type: 'fork', description: 'review notes', prompt: 'Summarise the notes' }]),
      say('I started a fork.'),
    );
    const result = await h.send('read notes.md, then fork a reviewer');
    assert.equal(result.text, 'I started a fork.');
    const [fork] = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: result.sessionId })).forks;
    assert.equal(fork.origin, 'agent');
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed');
    const first = h.fake.requests.find(isForkRequest)!;
    const sent = JSON.stringify(first.body.messages);
    assert.ok(sent.includes('read notes.md, then fork a reviewer'), 'the current request is inherited');
    assert.ok(sent.includes('The secret word is pelican'), 'the tool result already recorded is inherited');
    const closing = first.body.messages[first.body.messages.length - 1].content;
    assert.equal(closing[0].type, 'tool_result');
    assert.equal(closing[0].content, FORK_STARTED_RESULT);
    assert.match(closing[1].text, /DIRECTIVE: Summarise the notes$/);
    // docs/design.md §4.5: the fork's first request repeats the parent's latest request byte for byte.
    const parentLatest = h.fake.requests.filter(r => !isForkRequest(r))[1];
    const n = parentLatest.body.messages.length;
    assert.equal(JSON.stringify(first.body.messages.slice(0, n)), JSON.stringify(parentLatest.body.messages));
    for (const key of ['model', 'max_tokens', 'system', 'tools']) {
      assert.equal(JSON.stringify(first.body[key]), JSON.stringify(parentLatest.body[key]), `${key} is the same`);
    }
    assert.ok(first.usage!.cache_read_input_tokens > 0, 'the fork reads the parent\'s prefix from the cache');
  });

  it('a fork started while the parent\'s request after tool results is in flight repeats that request byte for byte', async () => {
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    let parentRequests = 0;
    h.fake.setResponder(async r => {
      if (isForkRequest(r)) return say('Scope: in flight.');
      if (parentRequests++ === 0) return call(['read_file', { path: 'notes.md' }]);
      await gate;
      return say('The word is pelican.');
    });
    const inFlight = new Promise<ReceivedRequest>(resolve => h.fake.onRequest(r => {
      if (!isForkRequest(r) && r.body.messages.length === 3) resolve(r);
    }));
    const sending = h.send('read notes.md');
    const parentRequest = await inFlight;
    const sessionId = h.events[0].sessionId;
    const fork = await start({ sessionId, directive: 'check the notes' });
    await wait(fork.id);
    release();
    await sending;
    const first = h.fake.requests.find(isForkRequest)!;
    const parentMessages = parentRequest.body.messages;
    const n = parentMessages.length;
    assert.equal(JSON.stringify(first.body.messages.slice(0, n - 1)), JSON.stringify(parentMessages.slice(0, n - 1)));
    // The tool results (with their breakpoint) open the fork's last message; the directive follows them.
    const parentLast = parentMessages[n - 1].content;
    const forkLast = first.body.messages[n - 1].content;
    assert.equal(JSON.stringify(forkLast.slice(0, parentLast.length)), JSON.stringify(parentLast));
    assert.ok(parentLast.at(-1).cache_control, 'the parent\'s request ends in a breakpoint, kept by the fork');
    assert.match(forkLast.at(-1).text, /DIRECTIVE: check the notes$/);
    for (const key of ['model', 'max_tokens', 'system', 'tools']) {
      assert.equal(JSON.stringify(first.body[key]), JSON.stringify(parentRequest.body[key]), `${key} is the same`);
    }
  });

  it('sibling forks from one point differ only after the directive', async () => {
    parentScript.push(say('Here is the plan.'));
    const parent = await h.send('plan the work');
    const a = await start({ sessionId: parent.sessionId, directive: 'do part A' });
    const b = await start({ sessionId: parent.sessionId, directive: 'do part B' });
    await Promise.all([wait(a.id), wait(b.id)]);
    const [ra, rb] = h.fake.requests.filter(isForkRequest).map(r => r.rawBody);
    let common = 0;
    while (ra[common] === rb[common]) common++;
    const directiveAt = ra.indexOf('DIRECTIVE: do part ');
    assert.equal(common, directiveAt + 'DIRECTIVE: do part '.length, 'the first difference is inside the directive');
  });

  it('fork_turns "2" inherits exactly the last two real user turns plus the startup entry', async () => {
    let sessionId: string | undefined;
    for (const n of [1, 2, 3]) {
      parentScript.push(say(`answer ${n}`));
      sessionId = (await h.send(`question ${n}`, { sessionId })).sessionId;
    }
    const fork = await start({ sessionId: sessionId!, forkTurns: '2' });
    await wait(fork.id);
    const messages = h.fake.requests.find(isForkRequest)!.body.messages;
    const text = JSON.stringify(messages);
    assert.match(messages[0].content[0].text, /^<system-reminder>\nWorkspace root/, 'startup entry first');
    assert.ok(!text.includes('question 1') && !text.includes('answer 1'));
    assert.ok(text.includes('question 2') && text.includes('answer 3'));
    assert.equal(fork.forkTurns, '2');
  });

  it('refuses a nested fork inside a fork with an error result', async () => {
    parentScript.push(say('ok'));
    const parent = await h.send('hello');
    let calls = 0;
    forkScript = () => (calls++ === 0 ? call(['Agent', { subagent_type: 'fork', description: 'again', prompt: 'fork more' }]) : say('Scope: x'));
    const fork = await start({ sessionId: parent.sessionId });
    await wait(fork.id);
    const second = h.fake.requests.filter(isForkRequest)[1];
    const result = second.body.messages[second.body.messages.length - 1].content[0];
    assert.equal(result.is_error, true);
    assert.equal(result.content, NESTED_FORK_ERROR);
  });

  it('delivers an agent-started fork\'s report into the parent\'s next request, once', async () => {
    parentScript.push(call(['Agent', { subagent_type: 'fork', description: 'side job', prompt: 'count files' }]), say('started'));
    forkScript = () => say('Scope: count files.\nResult: 1 file.');
    const first = await h.send('fork a side job');
    const [fork] = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: first.sessionId })).forks;
    await wait(fork.id);
    parentScript.push(say('thanks'), say('again'));
    await h.send('what did it find?', { sessionId: first.sessionId });
    const withReport = h.fake.requests.filter(r => !isForkRequest(r)).at(-1)!;
    assert.match(JSON.stringify(withReport.body.messages), /<fork-notification>[^]*Result: 1 file/);
    const { entries } = await h.transcript(first.sessionId);
    assert.equal(entries.filter(e => e.kind === 'notification').length, 1);
    await h.send('anything else?', { sessionId: first.sessionId });
    const { entries: later } = await h.transcript(first.sessionId);
    assert.equal(later.filter(e => e.kind === 'notification').length, 1, 'delivered once');
  });

  it('continues a finished fork with send: its own history, none of the parent\'s newer turns', async () => {
    parentScript.push(say('first parent answer'));
    const parent = await h.send('parent question one');
    const fork = await start({ sessionId: parent.sessionId, directive: 'remember the colour blue' });
    await wait(fork.id);
    parentScript.push(say('second parent answer'));
    await h.send('parent question two (newer)', { sessionId: parent.sessionId });
    forkScript = r => say(`continued after: ${lastUserText(r)}`);
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'and now the colour red' });
    const done = await wait(fork.id);
    assert.equal(done.report, 'continued after: and now the colour red');
    const sent = JSON.stringify(h.fake.requests.filter(isForkRequest).at(-1)!.body.messages);
    assert.ok(sent.includes('remember the colour blue') && sent.includes('Scope: test.'));
    assert.ok(!sent.includes('parent question two'), 'no newer parent history');
  });

  it('revives a fork from its bootstrap record after the runtime is killed mid-fork', async () => {
    parentScript.push(say('parent answer'));
    const parent = await h.send('parent question');
    const killed = killedMidFork(h);
    forkScript = killed.turn;
    const fork = await start({ sessionId: parent.sessionId });
    await killed.killWhenHung();
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed');
    assert.equal(done.report, REVIVED_REPORT);
    const { entries } = await h.transcript(fork.id);
    const ids = entries.map(e => e.id);
    assert.equal(new Set(ids).size, ids.length, 'no duplicated entries');
    const own = entries.slice(entries.findIndex(e => JSON.stringify(e.message).includes('<fork-boilerplate>')));
    assert.deepEqual(own.map(e => e.kind), ['prompt', 'response', 'tool_results', 'response']);
  });

  it('skips, at start-up, a fork whose file cannot be read, says why in the runtime log, and loads the others', async () => {
    parentScript.push(say('parent answer'));
    const parent = await h.send('one');
    const damaged = await start({ sessionId: parent.sessionId, directive: 'first' });
    const kept = await start({ sessionId: parent.sessionId, directive: 'second' });
    await Promise.all([wait(damaged.id), wait(kept.id)]);
    await killRuntime(h.runtimePid());
    // Its first line (the header) overwritten, as a disk error or a careless edit would leave it.
    const file = path.join(h.storeDir, 'sessions', `${damaged.id}.jsonl`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^[^\n]*/, '{"type":"garbage"}'));
    await h.reconnect();
    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    assert.deepEqual(forks.map(f => f.id), [kept.id]);
    assert.equal(forks[0].report, 'Scope: test.\nResult: done.');
    const log = fs.readFileSync(path.join(h.storeDir, 'runtime.log'), 'utf8');
    assert.match(log, new RegExp(`skipped a fork: ${damaged.id}: session file .* has no header`));
  });

  it('rejects every invalid fork_turns value at the protocol and in the Agent tool', async () => {
    parentScript.push(say('ok'));
    const parent = await h.send('hello');
    const invalid: unknown[] = ['none', '0', '-1', '1.5', ' 3', '3 ', '+3', '03', '1e2', '', 3, true, null, [], {}];
    for (const value of invalid) {
      await assert.rejects(start({ sessionId: parent.sessionId, forkTurns: value }), (e: Error) => /"all" or a positive whole number/.test(e.message), `protocol rejects ${JSON.stringify(value)}`);
    }
    parentScript.push(
      call(...invalid.map(v => ['Agent', { subagent_type: 'fork', description: 'x', prompt: 'y', fork_turns: v }] as [string, unknown])),
      call(['Agent', { subagent_type: 'explore', description: 'x', prompt: 'y', fork_turns: '2' }], ['Agent', { description: 'x', prompt: 'y', fork_turns: 'all' }]),
      say('all refused'),
    );
    await h.send('try bad forks', { sessionId: parent.sessionId });
    const parentRequests = h.fake.requests.filter(r => !isForkRequest(r));
    const results = parentRequests.at(-2)!.body.messages.at(-1).content;
    assert.equal(results.length, invalid.length);
    assert.ok(results.every((r: { is_error?: boolean; content: string }) => r.is_error && /"all" or a positive whole number/.test(r.content)));
    const typed = parentRequests.at(-1)!.body.messages.at(-1).content;
    assert.ok(typed.every((r: { is_error?: boolean; content: string }) => r.is_error && /only accepted with subagent_type "fork"/.test(r.content)));
    assert.equal((await sendRequest(h.client.endpoint, forkList, {})).forks.length, 0, 'no fork was started');
  });
});
