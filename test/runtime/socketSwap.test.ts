// A second local user who can write the parent of the socket's folder (a temp folder without the sticky
// bit): they exchange the user's `fork-agents-<uid>` folder for their own, with a listener at the socket's
// name, in a tight renameat2(RENAME_EXCHANGE) loop while the user's clients connect and send the token and
// the API key. The folder is checked and connected through one handle, so nothing reaches them. And when they
// pre-create that predictable folder, the user's runtime still starts, in a fresh private folder, and says so.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { runtimeConfigure } from '../../src/common/protocol/runtime';
import { runtimeLogPath, socketPathFor } from '../../src/ipc/socketPath';
import { cliRunner } from './cliRunner';
import { RUNTIME_SCRIPT, TEST_KEY, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { canCreateUsers, createLocalUser, runAs } from './localUsers';
import type { LocalUser } from './localUsers';
import { say } from './script';

const PYTHON = '/usr/bin/python3';
/** Connections made while the other user swaps folders. */
const SWAP_RUNS = Number(process.env.FORK_AGENTS_SWAP_RUNS ?? 60);

/** Exchanges two names until stdin closes; leaves them as found; prints the number of exchanges. */
const EXCHANGE_LOOP = `
import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
n = 0
while not done.is_set():
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.stderr.write('renameat2: ' + os.strerror(ctypes.get_errno()) + '\\n'); sys.exit(1)
    n += 1
    if n == 1: print('ready', flush=True)
if n % 2: libc.renameat2(-100, a, -100, b, 2)
print('exchanges', n, flush=True)
`;

/** A listener of the other user's that keeps what any client sends it and hangs up after its first frame. */
const LISTENER = `
const net = require('node:net');
let received = '';
const server = net.createServer(c => {
  let frame = '';
  c.on('data', d => {
    received += d;
    frame += d;
    // Hangs up once the first JSON-RPC frame (initialize, with the token) is complete.
    const header = /Content-Length: (\\d+)\\r\\n\\r\\n/.exec(frame);
    if (!header || frame.length < header.index + header[0].length + Number(header[1])) return;
    process.stdout.write('got ' + JSON.stringify(frame) + '\\n');
    c.destroy();
  });
});
server.listen(process.argv[1], () => process.stdout.write('ready\\n'));
process.stdin.on('end', () => { process.stdout.write('received ' + JSON.stringify(received) + '\\n'); process.exit(0); });
process.stdin.resume();`;

interface Helper { child: ChildProcess; ready: Promise<void>; output(): string; finish(): Promise<string> }

function startAs(user: LocalUser, command: string, args: string[]): Helper {
  const child = spawn(command, args, { uid: user.uid, gid: user.gid, cwd: '/', stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', chunk => {
      out += chunk;
      if (out.includes('ready\n')) resolve();
    });
    child.on('exit', code => reject(new Error(`${command} as ${user.name} exited ${code} before it was ready`)));
  });
  return {
    child,
    ready,
    output: () => out,
    finish: () => new Promise(resolve => {
      if (child.exitCode !== null) return resolve(out);
      child.on('exit', () => resolve(out));
      child.stdin!.end();
    }),
  };
}

describe('runtime: the socket folder against a second local user', function () {
  this.timeout(240_000);
  let other: LocalUser;
  let shared: string;
  let storeDir: string;
  let h: Harness | undefined;
  const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  const helpers: Helper[] = [];

  before(function () {
    if (!canCreateUsers()) {
      console.log('    skipped: creating a second local user needs root (useradd); run these tests as root');
      this.skip();
    }
    if (spawnSync(PYTHON, ['-c', 'import ctypes; ctypes.CDLL(None).renameat2']).status !== 0) {
      console.log(`    skipped: ${PYTHON} with renameat2 in libc is needed for the exchange loop`);
      this.skip();
    }
    other = createLocalUser('faswp');
  });
  after(() => other?.remove());
  beforeEach(() => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-swap-'));
    fs.chmodSync(base, 0o755);
    // A temp folder anyone can write, without the sticky bit: others may rename what is in it.
    shared = path.join(base, 'tmp');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    // Too long for a socket address, so the socket goes to the per-user folder in the temp folder.
    storeDir = path.join(base, 's'.repeat(110));
    process.env.TMPDIR = shared;
    delete process.env.XDG_RUNTIME_DIR;
  });
  afterEach(async () => {
    for (const helper of helpers.splice(0)) await helper.finish();
    await h?.dispose();
    h = undefined;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** The socket's predictable path, with TMPDIR pointing at the shared folder. */
  function predicted(): string {
    const socketPath = socketPathFor(storeDir);
    assert.equal(path.dirname(path.dirname(socketPath)), shared, `the socket goes to the shared temp folder: ${socketPath}`);
    return socketPath;
  }

  /** The other user's folder with a listener at the socket's name. */
  async function decoy(folder: string, socketName: string): Promise<Helper> {
    await runAs(other, `require('fs').mkdirSync(process.argv[1], { mode: 0o777 })`, [folder]);
    const listener = startAs(other, process.execPath, ['-e', LISTENER, path.join(folder, socketName)]);
    helpers.push(listener);
    await listener.ready;
    return listener;
  }

  it(`${SWAP_RUNS} connections during a rename-exchange loop: the token and the key never reach the other user`, async () => {
    const socketPath = predicted();
    h = await startHarness({ storeDir, runtimeEnv: { TMPDIR: shared } });
    const token = fs.readFileSync(path.join(storeDir, 'runtime.token'), 'utf8').trim();
    const listener = await decoy(path.join(shared, 'decoy'), path.basename(socketPath));
    const loop = startAs(other, PYTHON, ['-c', EXCHANGE_LOOP, path.dirname(socketPath), path.join(shared, 'decoy')]);
    helpers.push(loop);
    await loop.ready;

    // A client that reached the other user's listener waits for an answer that never comes: the listener's
    // report of what it got ends the run instead.
    const reached = new Promise<void>(resolve => listener.child.stdout!.on('data', () => listener.output().includes('got ') && resolve()));
    const outcomes = { served: 0, failed: 0, reachedOther: 0 };
    const failures = new Set<string>();
    let runs = 0;
    for (; runs < SWAP_RUNS && outcomes.reachedOther === 0; runs++) {
      const attempt = (async () => {
        const socket = await connectOrStart({ storeDir, runtimeScript: RUNTIME_SCRIPT, idleExitMs: 60_000, env: { TMPDIR: shared } });
        const client = await connectRpc(socket, 'swap-probe');
        await sendRequest(client.endpoint, runtimeConfigure, { apiKey: TEST_KEY, baseUrl: h!.fake.url });
        await client.close();
        return 'served' as const;
      })();
      try {
        const outcome = await Promise.race([attempt, reached.then(() => 'reachedOther' as const)]);
        outcomes[outcome]++;
      } catch (error) {
        outcomes.failed++;
        failures.add(error instanceof Error ? error.message : String(error));
      }
    }
    const exchanges = Number(/exchanges (\d+)/.exec(await loop.finish())?.[1]);
    const received = JSON.parse(/received (.*)\n/.exec(await listener.finish())![1]) as string;
    console.log(`      ${runs} of ${SWAP_RUNS} connections: ${outcomes.served} served, ${outcomes.failed} refused (${[...failures].join(' | ')}), ` +
      `${outcomes.reachedOther} reached the other user; ${exchanges} exchanges`);
    assert.equal(outcomes.reachedOther, 0, `a connection reached the other user, who received: ${received}`);
    assert.ok(exchanges > SWAP_RUNS, `the other user swapped the folders throughout (${exchanges} exchanges)`);
    assert.ok(!received.includes(token), 'the token never reached the other user');
    assert.ok(!received.includes(TEST_KEY), 'the key never reached the other user');
    assert.equal(received, '', 'nothing at all reached the other user');
    assert.ok(outcomes.served > 0, 'the user was served meanwhile');
  });

  it('a predictable folder the other user pre-created: the runtime starts in a fresh private folder and says so (log, CLI, client)', async () => {
    const socketPath = predicted();
    const listener = await decoy(path.dirname(socketPath), path.basename(socketPath));
    const notices: string[] = [];
    h = await startHarness({ storeDir, runtimeEnv: { TMPDIR: shared } });
    h.fake.setResponder(() => say('served'));
    assert.equal((await h.send('hello')).stopReason, 'end_turn');

    const info = JSON.parse(fs.readFileSync(path.join(storeDir, 'runtime.json'), 'utf8')) as { socket: string };
    const servedIn = path.dirname(info.socket);
    assert.notEqual(servedIn, path.dirname(socketPath));
    assert.ok(servedIn.startsWith(`${path.dirname(socketPath)}-`), `a fresh folder beside it: ${servedIn}`);
    const stat = fs.lstatSync(servedIn);
    assert.ok(stat.isDirectory() && stat.uid === process.getuid!() && (stat.mode & 0o777) === 0o700, 'the fresh folder is the user\'s, 0700');
    assert.match(fs.readFileSync(runtimeLogPath(storeDir), 'utf8'), /belongs to another user.*fresh private folder/);

    // Discovery: a second client of the same user finds the runtime there, and is told why.
    const socket = await connectOrStart({ storeDir, runtimeScript: RUNTIME_SCRIPT, onNotice: message => notices.push(message) });
    socket.destroy();
    assert.equal(notices.length, 1, notices.join('\n'));
    assert.match(notices[0], /belongs to another user/);
    assert.ok(notices[0].includes(servedIn), notices[0]);

    // The real CLI reaches the same runtime (no second one) and prints the notice.
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h!.fake.url, store: () => storeDir, extra: () => ({ TMPDIR: shared }) });
    const run = await cli('list', '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /fork-agents: .*belongs to another user.*private folder of its own/);
    assert.equal(h.runtimePid(), (JSON.parse(fs.readFileSync(path.join(storeDir, 'runtime.json'), 'utf8')) as { pid: number }).pid);

    // A runtime killed outright leaves its folder; the next one serves from the same folder, not another.
    await killRuntime(h.runtimePid());
    await h.reconnect();
    assert.equal((await h.send('again')).stopReason, 'end_turn');
    const again = JSON.parse(fs.readFileSync(path.join(storeDir, 'runtime.json'), 'utf8')) as { socket: string; pid: number };
    assert.equal(path.dirname(again.socket), servedIn, 'the same fallback folder');
    assert.deepEqual(fs.readdirSync(shared).filter(name => name.startsWith(`${path.basename(path.dirname(socketPath))}-`)), [path.basename(servedIn)]);

    const received = JSON.parse(/received (.*)\n/.exec(await listener.finish())![1]) as string;
    assert.equal(received, '', 'nothing reached the other user');
  });
});
