// The fork sandbox on real processes (Linux, bubblewrap): the bash tool's commands inside a real git
// worktree of a real npm project, a temp HOME holding fake secrets, a listener on 127.0.0.1, and the
// filtering proxy in front of a local HTTP server that stands in for an allowed host (reached by name).
// These tests need bwrap and socat and fail, not skip, without them (CI installs both).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ForkWorktree } from '../../src/common/forks';
import { createForkWorktree } from '../../src/runtime/git/createWorktree';
import { createForkSandbox } from '../../src/runtime/sandbox/forkSandbox';
import type { ForkSandbox } from '../../src/runtime/sandbox/forkSandbox';
import type { EgressDecision } from '../../src/runtime/sandbox/egressProxy';
import { sandboxSupport } from '../../src/runtime/sandbox/platform';
import { bashTool } from '../../src/runtime/tools/bash';
import type { ToolContext, ToolOutput } from '../../src/runtime/tools/types';
import { gitSync, initRepo } from './gitRepo';

const FILES = {
  'package.json': JSON.stringify({ name: 'sbx-fixture', version: '1.0.0', private: true, scripts: { test: 'node test.js' } }),
  'test.js': "require('assert').equal(1 + 1, 2); require('fs').writeFileSync('out.txt', 'ok'); console.log('fixture tests pass');\n",
};

describe('runtime: commands in the fork sandbox (bubblewrap)', function () {
  this.timeout(60_000);
  let base: string;
  let home: string;
  let repo: string;
  let store: string;
  let worktree: ForkWorktree;
  let sandbox: ForkSandbox | undefined;
  let listener: net.Server;
  let listenerPort: number;

  before(async () => {
    const support = sandboxSupport();
    assert.equal(support.kind, 'bwrap', `bubblewrap must be installed and usable (apt-get install bubblewrap socat): ${JSON.stringify(support)}`);
    assert.ok(support.kind === 'bwrap' && support.socat, 'socat must be installed (apt-get install socat)');
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-sbx-')));
    home = path.join(base, 'home');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL\n');
    fs.mkdirSync(path.join(home, '.aws'));
    fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'aws_secret_access_key=AWS-SECRET\n');
    fs.writeFileSync(path.join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=NPM-TOKEN\n');
    fs.writeFileSync(path.join(home, 'notes.txt'), 'not a secret\n');
    store = path.join(base, 'store');
    fs.mkdirSync(store, { mode: 0o700 });
    fs.writeFileSync(path.join(store, 'runtime.token'), 'RUNTIME-TOKEN\n', { mode: 0o600 });
    repo = path.join(base, 'repo');
    fs.mkdirSync(repo);
    initRepo(repo, FILES);
    worktree = await createForkWorktree({ repoRoot: repo, slug: 'sbx', id: 'abcd1234', name: 'sbx', owner: store });
    listener = net.createServer(socket => socket.end('HOST-LISTENER\n'));
    await new Promise<void>(resolve => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as net.AddressInfo).port;
  });
  after(async () => {
    await sandbox?.close();
    listener?.close();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  const open = async (allowNetwork?: string[], onNetwork?: (d: EgressDecision) => void) => {
    sandbox = await createForkSandbox({ settings: { mode: 'auto', ...(allowNetwork ? { allowNetwork } : {}) }, root: worktree.path, worktree, storeDir: store, id: 'abcd1234', home, onNetwork });
    assert.equal(sandbox.state.on, true, sandbox.state.note);
    return sandbox;
  };
  const run = (command: string, extra: Partial<ToolContext> = {}): Promise<ToolOutput> =>
    bashTool.run({ command }, { root: worktree.path, signal: new AbortController().signal, sandbox: sandbox?.commands, env: { FORK_AGENTS_FORK_ID: 'abcd1234' }, ...extra });

  it('writes its worktree, runs the project\'s test and commits on its branch', async () => {
    await open();
    const out = await run('echo hi > new.txt && npm test 2>&1 && cat out.txt && git add -A && git commit -qm "fork work" && git log --oneline -1');
    assert.ok(!out.isError, out.content);
    assert.match(out.content, /fixture tests pass/);
    assert.match(out.content, /ok[\s\S]*fork work/);
    assert.equal(fs.readFileSync(path.join(worktree.path, 'new.txt'), 'utf8'), 'hi\n');
    assert.match(gitSync(repo, 'log', '--oneline', '-1', worktree.branch), /fork work/, 'the commit is on the fork branch, seen from the main repository');
  });

  it('cannot write the main tree, its git config or hooks, the home folder, or git\'s redirection files; the error says why', async () => {
    await open();
    const before = gitSync(repo, 'rev-parse', 'main');
    for (const [command, target] of [
      [`echo x > ${repo}/evil.txt`, path.join(repo, 'evil.txt')],
      [`echo '[core]' >> ${repo}/.git/config`, undefined],
      [`echo 'touch /tmp/pwned' > ${repo}/.git/hooks/post-checkout`, path.join(repo, '.git/hooks/post-checkout')],
      [`touch ${home}/.bashrc`, path.join(home, '.bashrc')],
      ['echo "gitdir: /tmp/evil" > .git', undefined],
      [`echo /tmp/evil > ${worktree.gitDir}/commondir`, undefined],
      ['git update-ref refs/heads/main HEAD', undefined],
    ] as const) {
      const out = await run(command);
      assert.ok(out.isError, `${command} must fail: ${out.content}`);
      assert.match(out.content, /Read-only file system|cannot lock ref/, command);
      if (target) assert.ok(!fs.existsSync(target), `${target} must not exist`);
      if (/Read-only/.test(out.content)) assert.match(out.content, /\[Sandboxed: only .* is writable/);
    }
    assert.doesNotMatch(fs.readFileSync(path.join(repo, '.git/config'), 'utf8'), /\[core\]\n\[core\]/);
    assert.match(fs.readFileSync(path.join(worktree.path, '.git'), 'utf8'), /^gitdir: /);
    assert.equal(gitSync(repo, 'rev-parse', 'main'), before);
  });

  it('cannot read ~/.ssh, ~/.aws, ~/.npmrc or the runtime\'s store, and gets no API key in its environment; the rest of home stays readable', async () => {
    await open();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-must-not-leak';
    try {
      const out = await run(`cat ${home}/.ssh/id_rsa ${home}/.aws/credentials ${home}/.npmrc ${store}/runtime.token 2>&1; ls -A ${home}/.ssh; env; cat ${home}/notes.txt`);
      assert.doesNotMatch(out.content, /PRIVATE-KEY-MATERIAL|AWS-SECRET|NPM-TOKEN|RUNTIME-TOKEN|sk-ant-must-not-leak/);
      assert.match(out.content, /not a secret/);
      assert.match(out.content, /FORK_AGENTS_FORK_ID=abcd1234/);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it('has no network: a listener on the host\'s 127.0.0.1 and unix sockets are out of reach', async () => {
    await open();
    const sock = path.join(worktree.path, 'host.sock');
    const unixServer = net.createServer(socket => socket.end('HOST-UNIX\n'));
    await new Promise<void>(resolve => unixServer.listen(sock, resolve));
    try {
      const tcp = await run(`node -e "require('net').connect(${listenerPort}, '127.0.0.1').on('data', d => console.log(String(d))).on('error', e => { console.log(e.code); process.exit(7); })"`);
      assert.ok(tcp.isError, tcp.content);
      assert.match(tcp.content, /ECONNREFUSED/);
      assert.doesNotMatch(tcp.content, /HOST-LISTENER/);
      assert.match(tcp.content, /\[Sandboxed: .*there is no network/);
      const unix = await run(`node -e "require('net').connect('${sock}').on('data', d => console.log(String(d))).on('error', e => { console.log(e.code); process.exit(7); })"`);
      assert.ok(unix.isError, unix.content);
      assert.doesNotMatch(unix.content, /HOST-UNIX/);
      assert.match(unix.content, /EPERM|EACCES/);
    } finally {
      unixServer.close();
    }
  });

  it('reaches an allowed host only through the proxy, by name; other hosts get a 403 that names the policy', async () => {
    const server = http.createServer((req, res) => res.end(`ALLOWED-HOST ${req.headers.host}\n`));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    process.env.FORK_AGENTS_SANDBOX_HOSTS = 'registry.sandbox.test=127.0.0.1';
    const decisions: EgressDecision[] = [];
    try {
      await open(['registry.sandbox.test'], d => decisions.push(d));
      const viaProxy = await run(`curl -sS --max-time 10 http://registry.sandbox.test:${port}/pkg`);
      assert.ok(!viaProxy.isError, viaProxy.content);
      assert.match(viaProxy.content, new RegExp(`ALLOWED-HOST registry.sandbox.test:${port}`));
      const tunnel = await run(`curl -sS --max-time 10 -p http://registry.sandbox.test:${port}/tunnel`);
      assert.ok(!tunnel.isError, tunnel.content);
      const bypass = await run(`curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/`);
      assert.ok(bypass.isError, bypass.content);
      const other = await run(`curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://other.sandbox.test:${port}/; echo; curl -sS --max-time 10 http://127.0.0.1:${listenerPort}/`);
      assert.match(other.content, /^403/);
      assert.match(other.content, /blocked by the fork sandbox's network policy/);
      assert.doesNotMatch(other.content, /HOST-LISTENER/);
      assert.deepEqual(decisions.map(d => [d.host, d.allowed]), [['registry.sandbox.test', true], ['registry.sandbox.test', true], ['other.sandbox.test', false], ['127.0.0.1', false]]);
    } finally {
      delete process.env.FORK_AGENTS_SANDBOX_HOSTS;
      server.close();
    }
  });

  it('every process of a command ends with it, and a timeout kills the whole sandbox', async () => {
    await open();
    const marker = `sbx-sleep-${process.pid}`;
    const left = await run(`(exec -a ${marker} sleep 300) & setsid bash -c 'exec -a ${marker} sleep 300' & echo started`);
    assert.match(left.content, /started/);
    const timeout = await bashTool.run({ command: `(exec -a ${marker} sleep 300) & exec -a ${marker} sleep 301`, timeout_ms: 500 }, { root: worktree.path, signal: new AbortController().signal, sandbox: sandbox!.commands });
    assert.match(timeout.content, /Timed out/);
    const alive = fs.readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(p => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith(marker);
      } catch {
        return false;
      }
    });
    assert.deepEqual(alive, []);
  });
});
