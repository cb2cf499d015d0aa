// Revival never loosens approvals; Restricted Mode reads only; oversized and
// mistyped requests get clear invalid-params errors; the CLI reports a runtime that dies mid-turn and
// honours Ctrl-C in a new chat's first turn.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkCancel, forkList, forkStart, forkState } from '../../src/common/protocol/forks';
import type { ForkSummary } from '../../src/common/forks';
import { sessionList } from '../../src/common/protocol/runtime';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { TEST_KEY, killRuntime, useSharedHarness } from './harness';
import { call, say } from './script';
import { lastJson } from './cliRunner';

const CLI = path.resolve(__dirname, '../../../dist/cli.js');
const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const INVALID_PARAMS = -32602;

describe('runtime: hardening (revived approvals, Restricted Mode, bad requests, the CLI)', function () {
  this.timeout(30_000);
  const h = useSharedHarness({ config: { approvalMode: 'ask' } });
  let forkScript: (r: ReceivedRequest) => ScriptedTurn | Promise<ScriptedTurn>;

  beforeEach(async () => {
    forkScript = () => say('Scope: x');
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript(r) : say('parent answer')));
  });

  const forkStates = (client = h.client) => {
    const seen: ForkSummary[] = [];
    const waiters: [(f: ForkSummary) => boolean, () => void][] = [];
    onNotification(client.endpoint, forkState, params => {
      seen.push(params.fork);
      for (const [predicate, resolve] of waiters) if (predicate(params.fork)) resolve();
    });
    return (predicate: (f: ForkSummary) => boolean) =>
      new Promise<void>(resolve => (seen.some(predicate) ? resolve() : waiters.push([predicate, resolve])));
  };

  it('a fork launched with ask, killed while waiting for approval, still asks when revived by an auto client', async () => {
    const { sessionId } = await h.send('hello');
    const marker = path.join(h.root, 'pwned');
    let forkCalls = 0;
    forkScript = () => (forkCalls++ < 2 ? call(['bash', { command: `touch ${marker}` }]) : say('Scope: touched'));
    const waitFor = forkStates();
    // No connected client answers fork approvals, so the fork waits.
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'touch the marker', isolation: 'shared' });
    await waitFor(f => f.id === fork.id && f.state === 'waiting-for-approval');
    const bootstrap = fs.readFileSync(path.join(h.storeDir, 'sessions', `${fork.id}.jsonl`), 'utf8').split('\n')
      .map(line => (line ? JSON.parse(line) as { type: string; bootstrap?: { policy?: unknown } } : undefined)).find(r => r?.type === 'bootstrap');
    assert.deepEqual(bootstrap?.bootstrap?.policy, { approvalMode: 'ask', sandbox: { mode: 'off' } }, 'the launch approval mode and sandbox are on disk');
    await killRuntime(h.runtimePid());

    await h.configure({ approvalMode: 'auto' }).catch(() => undefined);
    const forkRequestsBefore = h.fake.requests.filter(isForkRequest).length;
    // The revived fork's question is held open: while it waits, nothing else can happen in the fork.
    let asked!: () => void;
    const wasAsked = new Promise<void>(resolve => (asked = resolve));
    h.answerApproval = () => {
      asked();
      return new Promise(() => undefined);
    };
    await h.reconnect();
    const waitAgain = forkStates();
    await h.configure({ answersForkApprovals: true });
    // Either the fork asks (the fix) or it runs the command and ends (the finding).
    await Promise.race([wasAsked, waitAgain(f => f.id === fork.id && ['completed', 'failed'].includes(f.state))]);
    assert.equal(h.fake.requests.filter(isForkRequest).length, forkRequestsBefore + 1, 'it was revived and asked the model again');
    assert.equal(h.approvals.length, 1, 'the revived fork asked before running the command');
    assert.equal(h.approvals[0].sessionId, fork.id);
    assert.equal(fs.existsSync(marker), false, 'the command did not run unasked');
    await sendRequest(h.client.endpoint, forkCancel, { forkId: fork.id });
  });

  it('Restricted Mode: reads run, writes and commands are refused without asking, also in a revived fork', async () => {
    await h.configure({ approvalMode: 'auto', restricted: true });
    fs.writeFileSync(path.join(h.root, 'notes.txt'), 'readable');
    let turn = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return forkScript(r);
      turn++;
      if (turn === 1) return call(['read_file', { path: 'notes.txt' }], ['write_file', { path: 'out.txt', content: 'x' }], ['bash', { command: 'touch ran' }]);
      return say('done');
    });
    const result = await h.send('read, write and run');
    assert.equal(result.stopReason, 'end_turn');
    const { entries } = await h.transcript(result.sessionId);
    const results = entries.flatMap(e => e.message.content).filter(b => b.type === 'tool_result') as { content: string; is_error?: boolean }[];
    assert.equal(results.length, 3);
    assert.equal(results[0].is_error, undefined);
    assert.match(String(results[0].content), /readable/);
    for (const refused of results.slice(1)) assert.match(String(refused.content), /^This \w+ call was not run \(the workspace is in Restricted Mode: trust it/);
    assert.equal(h.approvals.length, 0, 'nobody was asked');
    assert.equal(fs.existsSync(path.join(h.root, 'out.txt')), false);
    assert.equal(fs.existsSync(path.join(h.root, 'ran')), false);

    // A fork launched restricted stays restricted when a trusted, auto client revives it.
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    let forkCalls = 0;
    forkScript = async () => {
      if (forkCalls++ === 0) {
        await gate;
        return say('never delivered');
      }
      return forkCalls === 2 ? call(['bash', { command: 'touch ran' }]) : say('Scope: refused');
    };
    const waitFor = forkStates();
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: result.sessionId, directive: 'run it', isolation: 'shared' });
    await waitFor(f => f.id === fork.id && f.state === 'running');
    await killRuntime(h.runtimePid());
    release();
    await h.configure({ restricted: false }).catch(() => undefined);
    await h.reconnect();
    const waitAgain = forkStates();
    await waitAgain(f => f.id === fork.id && f.state === 'completed');
    assert.equal(fs.existsSync(path.join(h.root, 'ran')), false, 'the revived fork still cannot run commands');
  });

  it('refuses an oversized prompt and a non-string fork name with invalid-params, storing nothing', async () => {
    const before = (await sendRequest(h.client.endpoint, sessionList, {})).sessions.length;
    const forksBefore = (await sendRequest(h.client.endpoint, forkList, {})).forks.length;
    await assert.rejects(h.send('x'.repeat(2 * 1024 * 1024)), (error: { code?: number; message: string }) =>
      error.code === INVALID_PARAMS && /The prompt is 2\.0 MiB; the limit is 1\.0 MiB/.test(error.message));
    assert.equal((await sendRequest(h.client.endpoint, sessionList, {})).sessions.length, before);
    assert.equal(h.fake.requests.length, 0);
    const { sessionId } = await h.send('hello');
    for (const name of [42, { toString: 'x' }, ['a']]) {
      await assert.rejects(sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'go', name: name as unknown as string }),
        (error: { code?: number; message: string }) => error.code === INVALID_PARAMS && /name must be a string/.test(error.message));
    }
    assert.equal((await sendRequest(h.client.endpoint, forkList, {})).forks.length, forksBefore);
  });

  describe('the CLI', () => {
    const runCli = (...args: string[]) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: h.fake.url, FORK_AGENTS_HOME: h.storeDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', chunk => (stdout += chunk));
      child.stderr.on('data', chunk => (stderr += chunk));
      const firstLine = new Promise<void>(resolve => child.stdout.on('data', () => stdout.includes('\n') && resolve()));
      const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve =>
        child.on('exit', code => resolve({ code, stdout, stderr })));
      return { child, firstLine, exited };
    };
    let release: () => void = () => undefined;
    const holdModel = () => {
      const gate = new Promise<void>(resolve => (release = resolve));
      h.fake.setResponder(async () => {
        await gate;
        return say('too late');
      });
    };
    afterEach(() => release());

    it('exits 1 with the reason when the runtime dies mid-turn', async () => {
      holdModel();
      const run = runCli('chat', '--cwd', h.root, '--json', 'a long question');
      await run.firstLine;
      const pid = (JSON.parse(fs.readFileSync(runtimeInfoPath(h.storeDir), 'utf8')) as { pid: number }).pid;
      await killRuntime(pid);
      const done = await run.exited;
      assert.equal(done.code, 1, done.stderr);
      assert.match(done.stderr, /fork-agents: The Fork Agents runtime stopped before answering/);
      assert.doesNotMatch(done.stdout, /"type":"result"/);
    });

    it('Ctrl-C during a new chat\'s first turn stops that turn', async () => {
      holdModel();
      const run = runCli('chat', '--cwd', h.root, '--json', 'a question to interrupt');
      await run.firstLine;
      run.child.kill('SIGINT');
      const done = await run.exited;
      assert.equal(done.code, 1, done.stderr);
      assert.match(done.stderr, /the turn was cancelled/);
      const result = lastJson(done) as { sessionId: string; stopReason: string };
      assert.equal(result.stopReason, 'cancelled');
      const { sessions } = await sendRequest(h.client.endpoint, sessionList, {});
      assert.equal(sessions.find(s => s.id === result.sessionId)?.running, false);
    });
  });
});
