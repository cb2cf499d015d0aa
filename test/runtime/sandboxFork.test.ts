// A sandboxed fork end to end: the runtime process with fork.sandbox auto and approvals auto-edit, the
// real SDK against the fake model, a real git repository holding a real npm project, a temp HOME with a
// fake ~/.ssh key, and a listener on 127.0.0.1. Its commands run unasked, its test passes, and what
// tries to leave the sandbox fails with an error the fork reads and goes on from. Needs bubblewrap.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { cliRunner } from './cliRunner';
import { initRepo, isForkRequest, toolRuns } from './gitRepo';
import { TEST_KEY, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const FILES = {
  'package.json': JSON.stringify({ name: 'sandboxed-app', version: '1.0.0', private: true, scripts: { test: 'node test.js' } }),
  'test.js': "require('assert').equal([1, 2].length, 2);\nconsole.log('sandboxed-app tests pass');\n",
};

describe('runtime: a sandboxed fork (fork.sandbox auto, bubblewrap)', function () {
  this.timeout(90_000);
  let h: Harness;
  let home: string;
  let listener: net.Server;
  let port: number;

  before(async () => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-home-')));
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'FAKE-SSH-PRIVATE-KEY\n');
    listener = net.createServer(socket => socket.end('HOST-SERVICE\n'));
    await new Promise<void>(resolve => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as net.AddressInfo).port;
  });
  after(() => {
    listener.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  afterEach(() => h?.dispose());

  it('runs its commands unasked under auto-edit, writes its worktree and passes the project\'s test; escapes fail with a clear error and it goes on', async () => {
    h = await startHarness({ config: { approvalMode: 'auto-edit', sandbox: { mode: 'auto' } }, runtimeEnv: { HOME: home } });
    const repo = fs.realpathSync(h.root);
    initRepo(repo, FILES);
    const steps: ScriptedTurn[] = [
      call(['bash', { command: 'echo from-the-fork > result.txt && npm test 2>&1' }]),
      call(['bash', { command: `echo escaped > ${repo}/escaped.txt` }]),
      call(['bash', { command: `cat ${home}/.ssh/id_ed25519` }]),
      call(['bash', { command: `node -e "require('net').connect(${port}, '127.0.0.1').on('data', d => console.log(String(d))).on('error', e => { console.error(e.code); process.exit(1); })"` }]),
      call(['write_file', { path: 'notes.md', content: 'still going\n' }]),
      say('Scope: sandbox.\nResult: done.'),
    ];
    h.fake.setResponder((r: ReceivedRequest) => (isForkRequest(r) ? steps.shift()! : say('parent: ok')));
    const { sessionId } = await h.send('hello');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'work in the sandbox' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed', done.error);
    assert.deepEqual(h.approvals.map(a => a.toolName), [], 'commands inside the sandbox are not asked under auto-edit');
    assert.equal(done.sandbox?.on, true, done.sandbox?.note);
    assert.deepEqual(done.sandbox?.allowNetwork, []);

    const [test, escape, secret, connect, write] = toolRuns((await h.transcript(fork.id)).entries);
    assert.ok(!test.isError, test.content);
    assert.match(test.content, /sandboxed-app tests pass/);
    assert.equal(fs.readFileSync(path.join(done.worktree!.path, 'result.txt'), 'utf8'), 'from-the-fork\n');
    assert.ok(escape.isError);
    assert.match(escape.content, /Read-only file system/);
    assert.match(escape.content, /\[Sandboxed: only .* is writable/);
    assert.ok(!fs.existsSync(path.join(repo, 'escaped.txt')), 'the main tree is untouched');
    assert.ok(secret.isError);
    assert.doesNotMatch(secret.content, /FAKE-SSH-PRIVATE-KEY/);
    assert.ok(connect.isError);
    assert.match(connect.content, /ECONNREFUSED/);
    assert.doesNotMatch(connect.content, /HOST-SERVICE/);
    assert.ok(!write.isError, write.content);

    // The fork was told before its first command; the directive is in its transcript.
    const first = h.fake.requests.find(isForkRequest)!;
    assert.match(first.rawBody, /Sandbox notice: your commands run in an OS sandbox/);
    assert.match(first.rawBody, /There is no network/);
    const listed = (await sendRequest(h.client.endpoint, forkList, { parentSessionId: sessionId })).forks.find(f => f.id === fork.id);
    assert.equal(listed?.sandbox?.on, true);
  });

  it('fork.sandbox.parent: the chat\'s own commands run sandboxed too; its folder is writable, the folder above is not', async () => {
    h = await startHarness({ config: { approvalMode: 'auto', sandbox: { mode: 'auto', parent: true } }, runtimeEnv: { HOME: home } });
    const root = fs.realpathSync(h.root);
    const above = path.dirname(root);
    const steps: ScriptedTurn[] = [call(['bash', { command: `echo in > inside.txt && echo out > ${above}/outside.txt` }]), say('done')];
    h.fake.setResponder(() => steps.shift() ?? say('done'));
    const { sessionId } = await h.send('write two files');
    const [run] = toolRuns((await h.transcript(sessionId)).entries);
    assert.ok(run.isError, run.content);
    assert.match(run.content, /Read-only file system/);
    assert.equal(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8'), 'in\n');
    assert.ok(!fs.existsSync(path.join(above, 'outside.txt')));
  });

  it('`fork-agents list` shows each fork\'s isolation: worktree, sandbox and network', async () => {
    h = await startHarness({ config: { sandbox: { mode: 'auto' } }, runtimeEnv: { HOME: home } });
    initRepo(fs.realpathSync(h.root), FILES);
    h.fake.setResponder((r: ReceivedRequest) => (isForkRequest(r) ? say('Scope: s.\nResult: done.') : say('parent: ok')));
    const { sessionId } = await h.send('hello');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'nothing' });
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => h.storeDir });
    const listed = await cli('list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${fork.id}[\\s\\S]*worktree[\\s\\S]*sandbox: on \\(bwrap\\), network: off`));
  });
});
