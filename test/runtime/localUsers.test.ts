// With two real local users (docs/design.md §6, store and socket): the runtime's socket cannot be squatted or reached
// by another user, a connection without the token gets nothing, and the store is the owner's alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { SocketMessageReader, SocketMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { connectOrStart, readRuntimeToken } from '../../src/client/launch';
import { PROTOCOL_VERSION, RuntimeErrorCode } from '../../src/common/protocol/runtime';
import { runtimeTokenPath, socketPathFor } from '../../src/ipc/socketPath';
import { RUNTIME_SCRIPT, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { canCreateUsers, createLocalUser, runAs, squat } from './localUsers';
import type { LocalUser } from './localUsers';
import { say } from './script';

describe('runtime: another local user', function () {
  this.timeout(30_000);
  let other: LocalUser;
  let h: Harness | undefined;

  before(function () {
    if (!canCreateUsers()) {
      console.log('    skipped: creating a second local user needs root (useradd); run these tests as root');
      this.skip();
    }
    other = createLocalUser('fasec');
  });
  after(() => other?.remove());
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  /** A harness whose temp folder is world-readable, so only the store's own modes protect it. */
  async function openHarness(): Promise<Harness> {
    const harness = await startHarness();
    fs.chmodSync(path.dirname(harness.storeDir), 0o755);
    return harness;
  }

  it('store: folders 0700, files 0600 from creation; the other user can read nothing', async () => {
    h = await openHarness();
    h.fake.setResponder(() => say('a secret answer'));
    const { sessionId } = await h.send('my pasted secret: hunter2');
    const modes: string[] = [];
    const folders = new Set<string>(['.']);
    const walk = (dir: string) => {
      for (const name of fs.readdirSync(dir)) {
        const file = path.join(dir, name);
        const stat = fs.lstatSync(file);
        const line = `${path.relative(h!.storeDir, file)} ${(stat.mode & 0o777).toString(8)}`;
        // Inside a checkpoint repository git writes objects, their folders and the index with its own
        // modes (0444, 0755, 0644); what keeps them private is that the repository's folder and
        // `checkpoints` above it are 0700, which is checked here.
        const inCheckpointRepo = /^checkpoints\/[^/]+\//.test(line);
        if (stat.isDirectory()) folders.add(line.slice(0, line.lastIndexOf(' ')));
        if (!inCheckpointRepo) modes.push(line);
        if (stat.isDirectory()) walk(file);
      }
    };
    modes.push(`. ${(fs.statSync(h.storeDir).mode & 0o777).toString(8)}`);
    walk(h.storeDir);
    const expected = (line: string) => folders.has(line.slice(0, line.lastIndexOf(' '))) ? '700' : '600';
    assert.deepEqual(modes.filter(line => !line.endsWith(' ' + expected(line))), [], `modes: ${modes.join(', ')}`);
    assert.ok(modes.some(line => line.startsWith(`sessions/${sessionId}.jsonl 600`)), modes.join(', '));

    const tries = await runAs(other, `
      const fs = require('node:fs');
      const out = [];
      for (const file of process.argv.slice(1)) {
        try { fs.readFileSync(file); out.push('read ' + file); } catch (e) { out.push(e.code); }
      }
      try { fs.readdirSync(process.argv[1].split('/sessions/')[0]); out.push('listed'); } catch (e) { out.push(e.code); }
      process.stdout.write(out.join(','));`,
    [path.join(h.storeDir, 'sessions', `${sessionId}.jsonl`), runtimeTokenPath(h.storeDir), path.join(h.storeDir, 'runtime.log')]);
    assert.equal(tries, 'EACCES,EACCES,EACCES,EACCES');
  });

  it('socket: the other user cannot connect to it', async () => {
    h = await openHarness();
    const socketPath = socketPathFor(h.storeDir);
    assert.equal(path.dirname(socketPath), h.storeDir, 'in the 0700 store, not the shared temp folder');
    const answer = await runAs(other, `
      const socket = require('node:net').connect(process.argv[1]);
      socket.on('connect', () => { process.stdout.write('connected'); socket.destroy(); });
      socket.on('error', e => process.stdout.write(e.code));`, [socketPath]);
    assert.equal(answer, 'EACCES');
  });

  it('socket: another user\'s listener in its place is refused before anything is sent', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-squat-'));
    fs.chmodSync(base, 0o1777);
    const storeDir = path.join(base, 'store');
    fs.mkdirSync(storeDir, { mode: 0o700 });
    // The other user binds a socket in a folder of its own; it is then moved to where the runtime's would be.
    const theirs = path.join(base, 'theirs');
    await runAs(other, `require('node:fs').mkdirSync(process.argv[1], { mode: 0o755 })`, [theirs]);
    const squatter = squat(other, path.join(theirs, 'evil.sock'));
    await squatter.ready;
    fs.renameSync(path.join(theirs, 'evil.sock'), socketPathFor(storeDir));
    // The finding's path, in the shared temp folder: a squatter there is simply never looked at.
    const legacy = path.join(os.tmpdir(), `fork-agents-${createHash('sha256').update(storeDir).digest('hex').slice(0, 16)}.sock`);
    const legacySquatter = squat(other, legacy);
    await legacySquatter.ready;
    try {
      await assert.rejects(connectOrStart({ storeDir, runtimeScript: RUNTIME_SCRIPT }), /belongs to another user \(uid \d+, you are 0\); refusing to connect/);
    } finally {
      assert.equal(await squatter.bytesReceived(), 0);
      assert.equal(await legacySquatter.bytesReceived(), 0);
      fs.rmSync(legacy, { force: true });
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('socket: a store folder that belongs to another user is refused', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-squat-'));
    fs.chmodSync(base, 0o1777);
    const storeDir = path.join(base, 'store');
    await runAs(other, `require('node:fs').mkdirSync(process.argv[1], { mode: 0o777 })`, [storeDir]);
    try {
      await assert.rejects(connectOrStart({ storeDir, runtimeScript: RUNTIME_SCRIPT }), /belongs to another user .*refusing to use it; choose another store \(--store or FORK_AGENTS_HOME/);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('store: a folder the user cannot reach gives the folder and what to do, in the CLI and the editor\'s launcher', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-closed-'));
    fs.chmodSync(base, 0o755);
    const closed = path.join(base, 'root-only');
    fs.mkdirSync(closed, { mode: 0o700 });
    const storeDir = path.join(closed, 'store');
    const launch = path.resolve(__dirname, '../../src/client/launch.js');
    const cli = path.resolve(__dirname, '../../../dist/cli.js');
    try {
      const said = JSON.parse(await runAs(other, `
        const { spawnSync } = require('node:child_process');
        const [launch, cli, storeDir, runtimeScript] = process.argv.slice(1);
        const run = spawnSync(process.execPath, [cli, 'list', '--store', storeDir], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/' } });
        require(launch).connectOrStart({ storeDir, runtimeScript }).then(
          () => process.stdout.write('null'),
          error => process.stdout.write(JSON.stringify({ launcher: error.message, cli: run.stderr, status: run.status })));`,
      [launch, cli, storeDir, RUNTIME_SCRIPT])) as { launcher: string; cli: string; status: number };
      assert.equal(said.status, 1);
      for (const message of [said.launcher, said.cli.replace(/^fork-agents: /, '').trim()]) {
        assert.doesNotMatch(message, /^EACCES|permission denied, mkdir/, message);
        assert.ok(message.startsWith(`The Fork Agents store ${storeDir} cannot be opened: permission denied`), message);
        assert.match(message, /another user's, or closed to you; fix its permissions or choose another store \(--store or FORK_AGENTS_HOME for the CLI, FORK_AGENTS_STORE for the editor\)\.$/);
      }
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('runtime: the token at initialize', function () {
  this.timeout(30_000);
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.dispose());

  async function rawConnection() {
    const socket = net.connect(socketPathFor(h.storeDir));
    await new Promise(resolve => socket.once('connect', resolve));
    const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    const closed = new Promise<void>(resolve => socket.once('close', () => resolve()));
    connection.listen();
    return { socket, connection, closed };
  }
  const initialize = (connection: ReturnType<typeof createMessageConnection>, token?: string) =>
    connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { protocolVersion: PROTOCOL_VERSION, clientName: 'intruder', token } });

  it('nothing is served before initialize, and initialize needs the token; the real one works', async () => {
    const { socket, connection } = await rawConnection();
    try {
      await assert.rejects(connection.sendRequest('session/send', { root: h.root, prompt: 'rm -rf ~', turnId: 't' }),
        (error: { code?: number; message: string }) => error.code === RuntimeErrorCode.unauthorized && /initialize with the runtime's token first/.test(error.message));
      await assert.rejects(initialize(connection), (error: { code?: number }) => error.code === RuntimeErrorCode.unauthorized);
      await assert.rejects(connection.sendRequest('runtime/configure', { apiKey: 'x', approvalMode: 'auto' }),
        (error: { code?: number }) => error.code === RuntimeErrorCode.unauthorized);
      const token = readRuntimeToken(h.storeDir);
      assert.match(token ?? '', /^[0-9a-f]{64}$/);
      const result = await initialize(connection, token) as { serverInfo: { name: string } };
      assert.equal(result.serverInfo.name, 'fork-agents-runtime');
      assert.equal(h.fake.requests.length, 0);
    } finally {
      connection.dispose();
      socket.destroy();
    }
  });

  it('three wrong tokens close the connection', async () => {
    const { socket, connection, closed } = await rawConnection();
    try {
      for (let i = 0; i < 3; i++) {
        await assert.rejects(initialize(connection, 'f'.repeat(64)), (error: { code?: number }) => error.code === RuntimeErrorCode.unauthorized);
      }
      await closed;
    } finally {
      connection.dispose();
      socket.destroy();
    }
  });

  it('a new runtime writes a new token', async () => {
    const first = readRuntimeToken(h.storeDir);
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const second = readRuntimeToken(h.storeDir);
    assert.ok(first && second && first !== second);
    assert.equal(fs.statSync(runtimeTokenPath(h.storeDir)).mode & 0o777, 0o600);
  });
});

describe('runtime: a runtime at the socket it recorded', function () {
  this.timeout(30_000);
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.dispose());

  it('is reached (an older version listened in the temp folder), so no second runtime serves the store', async () => {
    const pid = h.runtimePid();
    const info = JSON.parse(fs.readFileSync(path.join(h.storeDir, 'runtime.json'), 'utf8')) as { socket: string };
    const elsewhere = path.join(h.storeDir, 'older.sock');
    fs.renameSync(info.socket, elsewhere);
    fs.writeFileSync(path.join(h.storeDir, 'runtime.json'), JSON.stringify({ ...info, socket: elsewhere }), { mode: 0o644 });
    const socket = await connectOrStart({ storeDir: h.storeDir, runtimeScript: RUNTIME_SCRIPT, connectTimeoutMs: 5_000 });
    socket.destroy();
    assert.equal(h.runtimePid(), pid, 'no new runtime wrote runtime.json');
    assert.equal(fs.existsSync(socketPathFor(h.storeDir)), false, 'no runtime listens at the new place');
  });
});
