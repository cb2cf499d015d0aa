// Fork lifecycle (docs/design.md §4.6): queue beyond the limit, cancel, approvals surfaced to the editor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkAnnounce, forkCancel, forkEvent, forkHistory, forkList, forkSend, forkStart, forkState, forkWait } from '../../src/common/protocol/forks';
import type { ForkSummary } from '../../src/common/forks';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { DEFAULT_MAX_CONCURRENT_FORKS } from '../../src/common/defaults';
import { killRuntime, useSharedHarness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

describe('runtime: fork lifecycle', function () {
  this.timeout(30_000);
  // The fork limit is the runtime's, not the connection's: every test starts from the default again.
  const h = useSharedHarness({ config: { answersForkApprovals: true, maxConcurrentForks: DEFAULT_MAX_CONCURRENT_FORKS } });
  let forkScript: (r: ReceivedRequest) => ScriptedTurn | Promise<ScriptedTurn>;
  const states: ForkSummary[] = [];

  beforeEach(async () => {
    states.length = 0;
    onNotification(h.client.endpoint, forkState, params => states.push(params.fork));
    forkScript = () => say('Scope: x');
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript(r) : say('parent answer')));
  });

  const parentSession = async () => (await h.send('hello')).sessionId;
  const start = (sessionId: string, directive: string) => sendRequest(h.client.endpoint, forkStart, { sessionId, directive });
  const waitForState = (predicate: (fork: ForkSummary) => boolean) =>
    new Promise<void>(resolve => {
      if (states.some(predicate)) return resolve();
      onNotification(h.client.endpoint, forkState, params => predicate(params.fork) && resolve());
    });
  const stateOf = (states: ForkSummary[], id: string) => states.filter(s => s.id === id).map(s => s.state);

  it('queues forks beyond fork.maxConcurrent and runs them as slots free up', async () => {
    await h.configure({ maxConcurrentForks: 1 });
    const sessionId = await parentSession();
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    forkScript = async r => {
      if (r.rawBody.includes('DIRECTIVE: first')) await gate;
      return say('Scope: done');
    };
    const first = await start(sessionId, 'first');
    const second = await start(sessionId, 'second');
    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    assert.deepEqual(forks.filter(f => f.id === first.id || f.id === second.id).map(f => f.state), ['running', 'queued']);
    release();
    await sendRequest(h.client.endpoint, forkWait, { forkId: second.id });
    assert.deepEqual(stateOf(states, second.id).filter((s, i, all) => s !== all[i - 1]), ['queued', 'running', 'completed']);
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: first.id })).state, 'completed');
  });

  it('tells a client once that a run is running: one fork/state change to "running" per run, and no notice that repeats the one before', async () => {
    const sessionId = await parentSession();
    const fork = await start(sessionId, 'count the notices');
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    // Continued with a message: a second run.
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'once more' });
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    const notices = states.filter(s => s.id === fork.id);
    // A slot was free: the fork's first notice says it runs (no "queued" one in the same moment before it).
    assert.equal(notices[0]?.state, 'running', `states: ${notices.map(s => s.state).join(', ')}`);
    const becameRunning = notices.filter((s, i) => s.state === 'running' && notices[i - 1]?.state !== 'running');
    assert.equal(becameRunning.length, 2, `states: ${notices.map(s => s.state).join(', ')}`);
    // Later "running" notices carry news (the sandbox, the workspace, usage); none is the previous one again.
    const repeated = notices.filter((s, i) => i > 0 && JSON.stringify(s) === JSON.stringify(notices[i - 1]));
    assert.deepEqual(repeated.map(s => s.state), []);
  });

  it('cancels a running fork: its tool process stops and the state is cancelled', async () => {
    const sessionId = await parentSession();
    forkScript = () => call(['bash', { command: 'sleep 30' }]);
    const fork = await start(sessionId, 'wait forever');
    // Its first response (the bash call) is in once the fork reports one model turn.
    await waitForState(s => s.id === fork.id && s.modelTurns === 1);
    assert.deepEqual(await sendRequest(h.client.endpoint, forkCancel, { forkId: fork.id }), { cancelled: true });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'cancelled');
    const { entries } = await h.transcript(fork.id);
    const last = entries[entries.length - 1];
    assert.equal(last.kind, 'tool_results', 'the open call got its result');
  });

  it('surfaces a fork\'s approval to the editor and waits for it', async () => {
    await h.configure({ approvalMode: 'ask' });
    const sessionId = await parentSession();
    let calls = 0;
    forkScript = () => (calls++ === 0 ? call(['write_file', { path: 'fork.txt', content: 'from the fork' }]) : say('Scope: wrote it'));
    let seenWhileWaiting: string | undefined;
    h.answerApproval = async params => {
      seenWhileWaiting = (await sendRequest(h.client.endpoint, forkList, {})).forks.find(f => f.id === params.sessionId)?.state;
      return { approved: true };
    };
    const fork = await start(sessionId, 'write a file');
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.equal(h.approvals.length, 1);
    assert.equal(h.approvals[0].sessionId, fork.id);
    assert.match(h.approvals[0].description, /^write a file: /, 'the prompt names the fork');
    assert.equal(seenWhileWaiting, 'waiting-for-approval');
    assert.equal(fs.readFileSync(path.join(h.root, 'fork.txt'), 'utf8'), 'from the fork');
  });

  it('lets exactly one client announce each finished run, and remembers it across a runtime restart', async () => {
    const sessionId = await parentSession();
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    forkScript = async () => {
      await gate;
      return say('Scope: announced');
    };
    const fork = await start(sessionId, 'announce me');
    const announce = (endpoint = h.client.endpoint) => sendRequest(endpoint, forkAnnounce, { forkId: fork.id });
    assert.deepEqual(await announce(), { first: false }, 'nothing to announce while it runs');
    release();
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    const other = await h.connectAnother();
    try {
      // Two windows ask at once: one wins.
      const answers = await Promise.all([announce(), announce(other.endpoint)]);
      assert.deepEqual(answers.map(a => a.first).sort(), [false, true]);
    } finally {
      await other.close();
    }
    const listed = (await sendRequest(h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.equal(listed.announced, true);

    await killRuntime(h.runtimePid());
    await h.reconnect();
    const revived = (await sendRequest(h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.equal(revived.announced, true, 'read back from the fork\'s status record');
    assert.equal(revived.endedAt, listed.endedAt, 'announcing does not move the end time');
    assert.deepEqual(await announce(), { first: false });

    // Continuing the fork makes a new run, announced once again.
    await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'once more' });
    const again = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(again.announced, undefined);
    assert.deepEqual(await announce(), { first: true });
    await assert.rejects(sendRequest(h.client.endpoint, forkAnnounce, { forkId: 'f-missing' }), /No fork with id f-missing/);
  });

  it('gives a fork\'s output so far as the events of its run, for a window that opens late', async () => {
    const sessionId = await parentSession();
    let calls = 0;
    forkScript = () => (calls++ === 0 ? call(['list_files', {}], ['read_file', { path: 'missing.txt' }]) : say('Scope: files.\nResult: listed.'));
    const seqs: [string, number][] = [];
    onNotification(h.client.endpoint, forkEvent, params => seqs.push([params.forkId, params.seq]));
    const fork = await start(sessionId, 'list the files');
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    const history = await sendRequest(h.client.endpoint, forkHistory, { forkId: fork.id });
    const shown = history.events.map(e =>
      e.type === 'text_delta' ? `text ${e.text}` : e.type === 'tool_call' ? `call ${e.description}` : e.type === 'tool_result' ? `result ${e.name} ${e.isError ? 'error' : 'ok'}` : e.type);
    assert.deepEqual(shown, [
      'request_start', 'call List **/*', 'call Read missing.txt', 'result list_files ok', 'result read_file error', 'request_start', 'text Scope: files.\nResult: listed.',
    ]);
    assert.equal(history.seq, Math.max(...seqs.filter(([id]) => id === fork.id).map(([, seq]) => seq)), 'the seq of its latest fork/event');
    await assert.rejects(sendRequest(h.client.endpoint, forkHistory, { forkId: 'f-missing' }), /No fork with id f-missing/);
  });
});
