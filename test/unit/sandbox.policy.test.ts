// The sandbox's pure parts: the bwrap argv (mount order decides what is visible), the seccomp program's
// bytes, the settings (parsing, never looser on revival), the proxy's address and host rules, the Seatbelt
// profile (generated only: not run on a Mac here), the note a failed command gets, and the file tools' rules.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeSandbox, hostAllowed, isolationText, parseSandboxSettings, stricterSandbox } from '../../src/common/sandbox';
import { revivalPolicy } from '../../src/runtime/policy';
import { buildSandboxArgv } from '../../src/runtime/sandbox/bwrapArgv';
import type { SandboxArgvOptions } from '../../src/runtime/sandbox/bwrapArgv';
import { denyEntries, denyPaths } from '../../src/runtime/sandbox/denyList';
import { isInwardAddress, pinnedHostsFromEnv } from '../../src/runtime/sandbox/egressProxy';
import { explainFailure } from '../../src/runtime/sandbox/forkSandbox';
import { seatbeltProfile } from '../../src/runtime/sandbox/seatbelt';
import { unixSocketFilter } from '../../src/runtime/sandbox/seccomp';
import { readFileTool } from '../../src/runtime/tools/read_file';
import { writeFileTool } from '../../src/runtime/tools/write_file';

const BASE: SandboxArgvOptions = {
  bwrap: '/usr/bin/bwrap', writable: ['/tmp/wt/fork', '/repo/.git/worktrees/fork'], protect: ['/tmp/wt/fork/.git'],
  readOnlyRebinds: ['/home/u', '/tmp/repo', '/tmp'], deny: [{ path: '/home/u/.ssh', kind: 'dir' }, { path: '/home/u/.npmrc', kind: 'file' }],
  env: { PATH: '/usr/bin', HOME: '/home/u' }, cwd: '/tmp/wt/fork', network: { kind: 'none' }, seccompFd: 3, command: 'npm test',
};

/** Index of the first occurrence of a flag followed by its arguments. */
function at(args: string[], ...seq: string[]): number {
  for (let i = 0; i + seq.length <= args.length; i++) if (seq.every((s, j) => args[i + j] === s)) return i;
  return -1;
}

describe('sandbox: bwrap argv', () => {
  it('read-only root, private /tmp and /run, rebinds after the tmpfs, writable binds, then protections and masks', () => {
    const { file, args } = buildSandboxArgv(BASE);
    assert.equal(file, '/usr/bin/bwrap');
    assert.deepEqual(args.slice(0, 10), ['--die-with-parent', '--new-session', '--unshare-all', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
    const tmp = at(args, '--tmpfs', '/tmp');
    const rebind = at(args, '--ro-bind', '/tmp/repo', '/tmp/repo');
    const worktree = at(args, '--bind', '/tmp/wt/fork', '/tmp/wt/fork');
    const pointer = at(args, '--ro-bind', '/tmp/wt/fork/.git', '/tmp/wt/fork/.git');
    const ssh = at(args, '--tmpfs', '/home/u/.ssh');
    const npmrc = at(args, '--ro-bind', '/dev/null', '/home/u/.npmrc');
    assert.ok(tmp > 0 && tmp < rebind && rebind < worktree && worktree < pointer && pointer < ssh && ssh < npmrc, args.join(' '));
    assert.equal(at(args, '--ro-bind', '/home/u', '/home/u'), -1, 'home is not under a private root: the read-only / shows it');
    assert.equal(at(args, '--ro-bind', '/tmp', '/tmp'), -1, 'the private root itself is never rebound');
    assert.ok(at(args, '--bind', '/repo/.git/worktrees/fork', '/repo/.git/worktrees/fork') > 0);
    assert.ok(at(args, '--ro-bind', '/tmp/wt', '/tmp/wt') < worktree, 'the folder holding the worktree comes back read-only, so writes beside it fail');
  });

  it('starts from an empty environment, sets exactly the given one, no network, seccomp on the given fd, bash -lc last', () => {
    const { args } = buildSandboxArgv(BASE);
    const clear = args.indexOf('--clearenv');
    assert.ok(clear > 0);
    assert.deepEqual(args.slice(clear + 1, clear + 7), ['--setenv', 'PATH', '/usr/bin', '--setenv', 'HOME', '/home/u']);
    assert.deepEqual(args.slice(-6), ['--seccomp', '3', '--', 'bash', '-lc', 'npm test']);
    assert.ok(!args.includes('--share-net'));
    assert.ok(!args.some(a => /PROXY/.test(a)));
  });

  it('a deny entry holding a writable folder comes before its bind, so the worktree stays visible', () => {
    const { args } = buildSandboxArgv({ ...BASE, deny: [{ path: '/tmp/wt', kind: 'dir' }] });
    assert.ok(at(args, '--tmpfs', '/tmp/wt') < at(args, '--bind', '/tmp/wt/fork', '/tmp/wt/fork'));
  });

  it('with a proxy: the socket bound in, proxy variables set, socat before an inner bwrap that applies the filter', () => {
    const { args } = buildSandboxArgv({ ...BASE, network: { kind: 'proxy', socket: '/tmp/egress/f.sock', socat: '/usr/bin/socat' } });
    assert.ok(at(args, '--ro-bind', '/tmp/egress/f.sock', '/run/fork-agents/proxy.sock') > at(args, '--tmpfs', '/run'));
    assert.ok(at(args, '--setenv', 'HTTPS_PROXY', 'http://127.0.0.1:3128') > 0);
    assert.ok(at(args, '--setenv', 'NO_PROXY', '') > 0);
    assert.ok(!args.includes('--seccomp'), 'the outer sandbox has no filter: socat needs AF_UNIX');
    const dashdash = args.lastIndexOf('--');
    assert.deepEqual([args[dashdash + 1], args[dashdash + 2]], ['bash', '-c']);
    const script = args[dashdash + 3];
    assert.match(script, /"\$2" TCP-LISTEN:3128,bind=127\.0\.0\.1,fork,reuseaddr UNIX-CONNECT:\/run\/fork-agents\/proxy\.sock/);
    assert.match(script, /exec "\$0" --unshare-user --dev-bind \/ \/ --die-with-parent --seccomp 3 -- bash -lc "\$1"/);
    assert.deepEqual(args.slice(dashdash + 4), ['/usr/bin/bwrap', 'npm test', '/usr/bin/socat']);
  });
});

describe('sandbox: seccomp program', () => {
  it('is the 10-instruction AF_UNIX block, byte for byte as the evaluation wrote it independently (x86-64)', () => {
    assert.equal(unixSocketFilter('x64').toString('hex'),
      '2000000004000000150001003e0000c00600000001000500200000000000000035000300000000401500000329000000200000001000000015000001010000000600000001000500060000000000ff7f');
  });
  it('uses the arm64 audit arch and socket number; unknown architectures are refused', () => {
    const arm = unixSocketFilter('arm64');
    assert.equal(arm.readUInt32LE(12), 0xc00000b7);
    assert.equal(arm.readUInt32LE(5 * 8 + 4), 198);
    assert.throws(() => unixSocketFilter('ia32'), /no seccomp filter/);
  });
});

describe('sandbox: settings', () => {
  it('parses, dropping bad entries with a reason each', () => {
    const { settings, problems } = parseSandboxSettings({ mode: 'strict', denyRead: ['~/.secrets', 'relative', '/etc/shadow'], allowNetwork: ['registry.npmjs.org', '*.github.com', 'http://x', ''] });
    assert.deepEqual(settings, { mode: 'auto', denyRead: ['~/.secrets', '/etc/shadow'], allowNetwork: ['registry.npmjs.org', '*.github.com'] });
    assert.equal(problems.length, 3);
    assert.match(problems.join('\n'), /must be auto, required or off[\s\S]*"relative"[\s\S]*"http:\/\/x"/);
  });
  it('revival is never looser: the stricter mode, denyRead added up, allowNetwork only what both allow', () => {
    assert.deepEqual(stricterSandbox({ mode: 'required', denyRead: ['/a'], allowNetwork: ['x.org', 'y.org'] }, { mode: 'off', denyRead: ['/b'], allowNetwork: ['y.org', 'z.org'] }),
      { mode: 'required', denyRead: ['/a', '/b'], allowNetwork: ['y.org'] });
    assert.deepEqual(stricterSandbox({ mode: 'off' }, { mode: 'auto' }), { mode: 'auto' });
    assert.deepEqual(stricterSandbox(undefined, { mode: 'off' }), { mode: 'off' }, 'a fork recorded before sandboxing takes the client\'s');
    const revived = revivalPolicy({ approvalMode: 'auto', sandbox: { mode: 'auto' } }, { approvalMode: 'auto', sandbox: { mode: 'off' } });
    assert.deepEqual(revived, { approvalMode: 'auto', sandbox: { mode: 'auto' } });
  });
  it('describes a fork\'s isolation in one line', () => {
    assert.equal(describeSandbox({ on: true, kind: 'bwrap', allowNetwork: [] }), 'sandbox: on (bwrap), network: off');
    assert.equal(describeSandbox({ on: true, kind: 'bwrap', allowNetwork: ['registry.npmjs.org'] }), 'sandbox: on (bwrap), network: only registry.npmjs.org via proxy');
    assert.equal(describeSandbox({ on: false, allowNetwork: [], note: 'fork.sandbox is off' }), 'sandbox: off (fork.sandbox is off)');
    assert.equal(isolationText({ isolation: 'worktree', worktree: { path: '/w/f' }, sandbox: { on: true, kind: 'bwrap', allowNetwork: [] } }), 'worktree /w/f; sandbox: on (bwrap), network: off');
  });
});

describe('sandbox: egress rules', () => {
  it('matches exact names and *.suffix, never the bare suffix or a lookalike', () => {
    assert.ok(hostAllowed('registry.npmjs.org', ['registry.npmjs.org']));
    assert.ok(hostAllowed('Registry.NPMJS.org.', ['registry.npmjs.org']));
    assert.ok(hostAllowed('api.github.com', ['*.github.com']));
    assert.ok(!hostAllowed('github.com', ['*.github.com']));
    assert.ok(!hostAllowed('evilgithub.com', ['*.github.com']));
    assert.ok(!hostAllowed('registry.npmjs.org.evil.com', ['registry.npmjs.org']));
  });
  it('refuses loopback, private, link-local (metadata), CGNAT and multicast addresses, v4 and v6', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) assert.ok(isInwardAddress(a), a);
    for (const a of ['104.16.0.35', '172.32.0.1', '2606:4700::6810:2223']) assert.ok(!isInwardAddress(a), a);
  });
  it('pinned hosts come from name=address pairs; bad ones are ignored', () => {
    assert.deepEqual([...pinnedHostsFromEnv('Reg.Test=127.0.0.1, bad=notanip,=1.2.3.4')], [['reg.test', '127.0.0.1']]);
  });
});

describe('sandbox: Seatbelt profile (macOS; generated, not run here)', () => {
  it('denies network and writes by default, allows the writable roots, re-denies protected files, hides the deny list', () => {
    const profile = seatbeltProfile({ writable: ['/Users/u/wt/f'], protect: ['/Users/u/wt/f/.git'], deny: [{ path: '/Users/u/.ssh', kind: 'dir' }, { path: '/Users/u/.npmrc', kind: 'file' }] });
    const lines = profile.trim().split('\n');
    assert.equal(lines[0], '(version 1)');
    assert.ok(lines.includes('(deny network*)'));
    const deny = lines.indexOf('(deny file-write*)');
    const allow = lines.findIndex(l => l.startsWith('(allow file-write* (subpath "/Users/u/wt/f")'));
    const protect = lines.indexOf('(deny file-write* (literal "/Users/u/wt/f/.git"))');
    assert.ok(deny >= 0 && deny < allow && allow < protect, profile);
    assert.equal(lines.at(-1), '(deny file-read* file-write* (subpath "/Users/u/.ssh") (literal "/Users/u/.npmrc"))');
    assert.match(seatbeltProfile({ writable: ['/a "b'], protect: [], deny: [] }), /\(subpath "\/a \\"b"\)/);
    assert.throws(() => seatbeltProfile({ writable: ['/a\nb'], protect: [], deny: [] }), /control character/);
  });
});

describe('sandbox: what a failed command is told', () => {
  const state = { on: true, allowNetwork: [] as string[] };
  it('names the policy for read-only writes and missing network; says nothing for ordinary failures', () => {
    assert.match(explainFailure('bash: /repo/x: Read-only file system', '/wt', state)!, /only \/wt .* is writable/);
    assert.match(explainFailure('curl: (6) Could not resolve host: example.com', '/wt', state)!, /there is no network/);
    assert.match(explainFailure('Error: connect ECONNREFUSED 127.0.0.1:80', '/wt', { ...state, allowNetwork: ['a.org'] })!, /only through the proxy to a\.org/);
    assert.equal(explainFailure('AssertionError: 1 == 2', '/wt', state), undefined);
  });
});

describe('sandbox: deny list and the file tools', () => {
  let base: string;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-deny-')));
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('keeps only existing paths, folders as dirs and files as files, and a symlinked secret under its target', async () => {
    const home = path.join(base, 'home');
    await fs.mkdir(path.join(home, '.ssh'), { recursive: true });
    await fs.writeFile(path.join(home, '.npmrc'), 'token');
    await fs.mkdir(path.join(base, 'real-aws'));
    await fs.symlink(path.join(base, 'real-aws'), path.join(home, '.aws'));
    const entries = denyEntries(denyPaths(home, path.join(base, 'store-missing'), ['~/extra-missing']));
    assert.deepEqual(entries, [
      { path: path.join(home, '.ssh'), kind: 'dir' },
      { path: path.join(base, 'real-aws'), kind: 'dir' },
      { path: path.join(home, '.npmrc'), kind: 'file' },
    ]);
  });

  it('read_file refuses a denied path inside the root; write_file refuses the read-only .git pointer; both say why', async () => {
    const root = path.join(base, 'root');
    await fs.mkdir(path.join(root, 'secrets'), { recursive: true });
    await fs.writeFile(path.join(root, 'secrets', 'key'), 'k');
    await fs.writeFile(path.join(root, '.git'), 'gitdir: /elsewhere\n');
    const ctx = { root, signal: new AbortController().signal, gitWritesAllowed: true, fileRules: { denied: [path.join(root, 'secrets')], readOnly: [path.join(root, '.git')] } };
    await assert.rejects(readFileTool.run({ path: 'secrets/key' }, ctx), /on the fork sandbox's deny list/);
    await assert.rejects(writeFileTool.run({ path: '.git', content: 'gitdir: /tmp/evil\n' }, ctx), /read-only in the fork sandbox/);
    assert.equal(await fs.readFile(path.join(root, '.git'), 'utf8'), 'gitdir: /elsewhere\n');
    const plain = await readFileTool.run({ path: 'secrets/key' }, { root, signal: ctx.signal });
    assert.match(plain.content, /k/, 'without rules the same read works: the rule is what refuses it');
  });
});
