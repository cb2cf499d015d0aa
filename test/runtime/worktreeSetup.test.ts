// Worktree forks that can build, test and run (docs/design.md §4.8), end to end: the runtime process, the real SDK
// against the fake model server, a real git repository holding a real package.json whose dependency is
// installed with `npm ci` from the committed lockfile, and real processes (npm, node servers, setup commands).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/common/agentEvents';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkDiscard, forkEvent, forkReview, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkSummary } from '../../src/common/forks';
import type { WorktreeOptions } from '../../src/common/worktreeOptions';
import type { ReceivedRequest, Responder, ScriptedTurn } from '../fakes/anthropicServer';
import { cliRunner } from './cliRunner';
import { gitSync, initRepo, isForkRequest, toolRuns, write } from './gitRepo';
import { TEST_KEY, isAlive, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const PACKAGE_JSON = JSON.stringify({ name: 'fixture-app', version: '1.0.0', private: true, scripts: { test: 'node test.js' }, dependencies: { 'is-number': '7.0.0' } }, null, 2);
const LOCKFILE = JSON.stringify({
  name: 'fixture-app', version: '1.0.0', lockfileVersion: 3, requires: true,
  packages: {
    '': { name: 'fixture-app', version: '1.0.0', dependencies: { 'is-number': '7.0.0' } },
    'node_modules/is-number': {
      version: '7.0.0',
      resolved: 'https://registry.npmjs.org/is-number/-/is-number-7.0.0.tgz',
      integrity: 'sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==',
      license: 'MIT', engines: { node: '>=0.12.0' },
    },
  },
}, null, 2);
const TEST_JS = "const isNumber = require('is-number');\nif (!isNumber(5) || isNumber('x')) process.exit(1);\nconsole.log('is-number works');\n";
const SERVER_JS = [
  "const http = require('http');",
  'const port = Number(process.env.PORT);',
  'http.createServer((req, res) => res.end(process.env.FORK_AGENTS_FORK_ID)).listen(port, () => console.log(`listening ${port} ${process.pid}`));',
  '',
].join('\n');
const FILES: Record<string, string> = {
  'package.json': PACKAGE_JSON, 'package-lock.json': LOCKFILE, 'test.js': TEST_JS, 'server.js': SERVER_JS,
  '.gitignore': 'node_modules/\n.env\n*.link\n',
};

describe('runtime: worktree forks that build, test and run', function () {
  this.timeout(120_000);
  let template: string;
  let h: Harness;
  let repo: string;
  let sessionId: string;
  let forkEvents: { forkId: string; event: AgentEvent }[];
  let onForkEvent: ((event: AgentEvent) => void) | undefined;

  before(() => {
    // One `npm ci` for the suite (the registry is reachable); each test copies the installed tree.
    template = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-npm-'));
    for (const [name, content] of Object.entries(FILES)) write(template, name, content);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: template, stdio: 'pipe' });
    assert.ok(fs.existsSync(path.join(template, 'node_modules/is-number/index.js')));
  });
  after(() => fs.rmSync(template, { recursive: true, force: true }));

  const setUp = async (worktree: WorktreeOptions | undefined, responder: Responder) => {
    h = await startHarness({ config: { worktree } });
    repo = fs.realpathSync(h.root);
    fs.cpSync(template, repo, { recursive: true, verbatimSymlinks: true });
    initRepo(repo, {});
    assert.equal(gitSync(repo, 'status', '--porcelain'), '', 'node_modules is ignored');
    forkEvents = [];
    onForkEvent = undefined;
    onNotification(h.client.endpoint, forkEvent, params => {
      forkEvents.push({ forkId: params.forkId, event: params.event });
      onForkEvent?.(params.event);
    });
    h.fake.setResponder(r => (isForkRequest(r) ? responder(r) : say('parent: ok')));
    sessionId = (await h.send('hello')).sessionId;
  };
  afterEach(() => h?.dispose());

  const start = (directive: string) => sendRequest(h.client.endpoint, forkStart, { sessionId, directive });
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });
  const runsOf = async (forkId: string) => toolRuns((await h.transcript(forkId)).entries);
  /** The fork's turn: its first request gets `first`, later ones (after tool results) its report. */
  const firstThenReport = (first: ScriptedTurn) => (r: ReceivedRequest) =>
    r.body.messages.at(-1).content.some((b: { type: string }) => b.type === 'tool_result') ? say('Scope: t.\nResult: done.') : first;

  it('copies an ignored .env only when .worktreeinclude lists it, keeping its mode; a symlink out of the repository stays behind', async () => {
    await setUp(undefined, firstThenReport(call(['bash', { command: 'cat .env; stat -c %a .env; test -e outside.link && echo link-present || echo link-absent' }])));
    write(repo, '.env', 'SECRET=from-main\n');
    fs.chmodSync(path.join(repo, '.env'), 0o600);
    fs.symlinkSync('/etc/hostname', path.join(repo, 'outside.link'));

    const without = await start('read the env');
    assert.equal((await wait(without.id)).state, 'completed');
    const [plain] = await runsOf(without.id);
    assert.match(plain.content, /cat: \.env: No such file/);
    assert.doesNotMatch(plain.content, /SECRET/);
    assert.ok(!fs.existsSync(path.join(without.worktree!.path, '.env')));

    write(repo, '.worktreeinclude', '# ignored files the forks need\n.env\n*.link\n');
    const withInclude = await start('read the env again');
    const done = await wait(withInclude.id);
    assert.equal(done.state, 'completed');
    const [included] = await runsOf(withInclude.id);
    assert.ok(!included.isError, included.content);
    assert.match(included.content, /SECRET=from-main\n600\nlink-absent/);
    assert.equal(done.setup?.state, 'done');
    assert.equal(done.setup?.copied, 1);
    const reminder = (await h.transcript(withInclude.id)).entries.find(e => e.kind === 'reminder');
    assert.ok(reminder && JSON.stringify(reminder.message).includes('outside.link (a symlink that points outside the repository)'));
    // The copy is ignored in the fork too: nothing to review.
    assert.deepEqual((await sendRequest(h.client.endpoint, forkReview, { forkId: withInclude.id })).files, []);
  });

  it('link: ["node_modules"] lets `npm test` pass in the fork; without it the module is missing; review shows only the fork\'s own change', async () => {
    await setUp({ link: ['node_modules'] }, firstThenReport(call(['bash', { command: 'npm test 2>&1' }], ['write_file', { path: 'notes.md', content: 'fork notes\n' }])));
    const linked = await start('run the tests');
    const done = await wait(linked.id);
    assert.equal(done.state, 'completed', done.error);
    const [npmTest] = await runsOf(linked.id);
    assert.ok(!npmTest.isError, npmTest.content);
    assert.match(npmTest.content, /is-number works/);
    assert.equal(fs.readlinkSync(path.join(linked.worktree!.path, 'node_modules')), path.join(repo, 'node_modules'));
    assert.deepEqual(done.setup?.linked, ['node_modules']);
    const review = await sendRequest(h.client.endpoint, forkReview, { forkId: linked.id });
    assert.deepEqual(review.files.map(f => f.path), ['notes.md'], 'the symlink git does not ignore (node_modules/ matches folders only) is part of the base');
    await sendRequest(h.client.endpoint, forkDiscard, { forkId: linked.id });
    assert.ok(fs.existsSync(path.join(repo, 'node_modules/is-number/index.js')), 'discarding the fork leaves the shared folder alone');

    await h.configure({ worktree: {} });
    const bare = await start('run the tests without modules');
    assert.equal((await wait(bare.id)).state, 'completed');
    const [failing] = await runsOf(bare.id);
    assert.ok(failing.isError, failing.content);
    assert.match(failing.content, /Cannot find module 'is-number'/);
  });

  it('runs setup before the first tool call but not before the first request; streams and records its output and exit code; review ignores what it made', async () => {
    const gate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-gate-')), 'go');
    // Setup builds only after the test saw the fork reach its first tool call, and slowly: a tool that did
    // not wait for it would find nothing built. (The pause is the setup's, not the test's: no assertion is timed.)
    const setup = [`echo setup-says-hi; until [ -f ${gate} ]; do sleep 0.05; done; sleep 0.5; echo built > build-output.txt; echo "port=$PORT fork=$FORK_AGENTS_FORK_ID"`];
    let firstRequestSawSetupDone: boolean | undefined;
    await setUp({ setup }, r => {
      const last = r.body.messages.at(-1).content;
      if (last.some((b: { type: string }) => b.type === 'tool_result')) return say('Scope: s.\nResult: done.');
      // The first request arrives while setup still waits for the gate: it did not wait for setup.
      firstRequestSawSetupDone = fs.existsSync(gate);
      onForkEvent = event => {
        if (event.type === 'tool_call') fs.writeFileSync(gate, '');
      };
      return call(['bash', { command: 'cat build-output.txt && echo "$FORK_AGENTS_WORKTREE|$FORK_AGENTS_PARENT_ROOT|$PORT|$FORK_AGENTS_PORT_BASE"' }], ['write_file', { path: 'mine.txt', content: 'mine\n' }]);
    });
    const fork = await start('use the build');
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed', done.error);
    assert.equal(firstRequestSawSetupDone, false);

    const [bash] = await runsOf(fork.id);
    assert.ok(!bash.isError, bash.content);
    const [built, env] = bash.content.split('\n');
    assert.equal(built, 'built', 'the tool call ran after setup');
    const [worktree, parentRoot, port, portBase] = env.split('|');
    assert.equal(worktree, fork.worktree!.path);
    assert.equal(parentRoot, repo);
    assert.equal(port, portBase);
    assert.equal(Number(portBase), done.portBase);

    const mine = forkEvents.filter(e => e.forkId === fork.id).map(e => e.event);
    assert.ok(mine.some(e => e.type === 'setup_start' && e.command === setup[0]));
    assert.ok(mine.filter(e => e.type === 'setup_output').map(e => (e as { text: string }).text).join('').includes('setup-says-hi'));
    assert.ok(mine.some(e => e.type === 'setup_end' && e.exitCode === 0));

    const reminder = (await h.transcript(fork.id)).entries.find(e => e.kind === 'reminder');
    const text = JSON.stringify(reminder?.message);
    assert.match(text, /exited with code 0/);
    assert.match(text, /setup-says-hi/);
    assert.match(text, new RegExp(`port=${portBase} fork=${fork.id}`));
    // The fork's second request carries it, so the fork can read it.
    const [first, second] = h.fake.requests.filter(isForkRequest);
    assert.match(JSON.stringify(first.body.messages.at(-1)), /must listen on \$PORT, or on the ports of the block that starts at\\n  \$FORK_AGENTS_PORT_BASE/, 'the worktree notice');
    assert.match(JSON.stringify(second.body.messages.at(-1)), /worktree-setup[\s\S]*exited with code 0/);
    assert.deepEqual((await sendRequest(h.client.endpoint, forkReview, { forkId: fork.id })).files.map(f => f.path), ['mine.txt']);
  });

  it('a failing setup fails the fork with the command\'s tail as its reason, and no tool runs', async () => {
    await setUp({ setup: ['echo step one; echo "npm ERR! broken dependency" >&2; exit 3'] }, firstThenReport(call(['bash', { command: 'touch ran.txt' }])));
    const fork = await start('never runs');
    const done = await wait(fork.id);
    assert.equal(done.state, 'failed');
    assert.match(done.error!, /exited with code 3/);
    assert.match(done.error!, /npm ERR! broken dependency/);
    assert.equal(done.setup?.state, 'failed');
    assert.ok(!fs.existsSync(path.join(fork.worktree!.path, 'ran.txt')));
    const entries = (await h.transcript(fork.id)).entries;
    assert.ok(entries.some(e => e.kind === 'reminder' && JSON.stringify(e.message).includes('exited with code 3')));
  });

  it('two forks serve on their own $PORT at the same time; finishing and discarding end their servers', async () => {
    // Each fork's second request waits until both servers run: they are up at the same time.
    let serving = 0;
    let bothServing!: () => void;
    const bothStarted = new Promise<void>(resolve => (bothServing = resolve));
    let alphaHangs!: () => void;
    const alphaWaits = new Promise<void>(resolve => (alphaHangs = resolve));
    const turnOf = new Map<string, number>();
    await setUp(undefined, async r => {
      const key = /DIRECTIVE: serve (\w+)/.exec(r.rawBody)![1];
      const turn = (turnOf.get(key) ?? 0) + 1;
      turnOf.set(key, turn);
      if (turn === 1) return call(['bash', { command: 'node server.js > server.log 2>&1 & until grep -q listening server.log; do sleep 0.05; done; cat server.log' }]);
      if (turn === 2) {
        if (++serving === 2) bothServing();
        await bothStarted;
        return call(['bash', { command: 'node -e "require(\'http\').get(\'http://127.0.0.1:\' + process.env.PORT, r => r.on(\'data\', d => process.stdout.write(d)))"' }]);
      }
      if (key !== 'alpha') return say('Scope: serve.\nResult: served.');
      alphaHangs();
      return hang();
    });
    const alpha = await start('serve alpha');
    const beta = await start('serve beta');
    const doneBeta = await wait(beta.id);
    assert.equal(doneBeta.state, 'completed', doneBeta.error);
    await alphaWaits;

    const served = async (fork: ForkSummary) => {
      const runs = await runsOf(fork.id);
      const [, port, pid] = /listening (\d+) (\d+)/.exec(runs[0].content)!;
      return { port: Number(port), pid: Number(pid), answer: runs[1].content };
    };
    const a = await served(alpha);
    const b = await served(beta);
    assert.notEqual(a.port, b.port);
    assert.match(a.answer, new RegExp(`^${alpha.id}`), 'alpha reached its own server');
    assert.match(b.answer, new RegExp(`^${beta.id}`), 'beta reached its own server');

    assert.ok((doneBeta.endedProcesses ?? 0) >= 1, 'finishing ended beta\'s server');
    assert.equal(isAlive(b.pid), false);
    assert.equal(isAlive(a.pid), true, 'alpha still runs, and so does its server');
    assert.equal(await answers(a.port), true);

    const discarded = await sendRequest(h.client.endpoint, forkDiscard, { forkId: alpha.id });
    assert.ok((discarded.endedProcesses ?? 0) >= 1, JSON.stringify(discarded));
    assert.equal(isAlive(a.pid), false);
    assert.equal(await answers(a.port), false);
  });

  it('the CLI\'s --worktree-setup runs in the fork\'s worktree and shows its output', async () => {
    await setUp(undefined, firstThenReport(call(['bash', { command: 'cat from-setup.txt' }])));
    const store = h.storeDir;
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => store });
    const run = await cli('fork', '--session', sessionId, '--worktree-setup', 'echo cli-setup-output; echo made > from-setup.txt', '--approval', 'auto', '--wait', 'read what setup made');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /● setup: echo cli-setup-output/);
    assert.match(run.stderr, /cli-setup-output\n/);
    assert.match(run.stderr, /exit code 0/);
    const forkId = /fork: (f-[0-9a-f-]+)/.exec(run.stdout)![1];
    // The CLI's forks run sandboxed (auto): a login profile that writes to the read-only home may print a warning first.
    assert.match((await runsOf(forkId))[0].content, /(^|\n)made\n/);
  });
});

function hang(): { fault: 'hang' } {
  return { fault: 'hang' };
}

function answers(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const req = http.get({ host: '127.0.0.1', port, timeout: 5_000 }, res => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
  });
}
