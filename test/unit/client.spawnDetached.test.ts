// The one "spawn detached, wait until ready" helper of the runtime launcher and the demo model: a real
// child process that becomes ready by writing a file, one that exits first, one that never gets ready.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DetachedStartError, spawnDetached } from '../../src/client/spawnDetached';

describe('client: spawnDetached', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-spawn-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const logFd = () => fs.openSync(path.join(dir, 'log'), 'a', 0o600);
  const readyFile = () => path.join(dir, 'ready');
  const readReady = () => (fs.existsSync(readyFile()) ? fs.readFileSync(readyFile(), 'utf8') : undefined);

  it('returns what ready() gives once the process made itself ready, with its output in the log', async () => {
    // Like a server: ready after a while, then it keeps running (ended by the test).
    const script = `console.log('starting'); setTimeout(() => require('fs').writeFileSync(${JSON.stringify(readyFile())}, 'up'), 50); setInterval(() => {}, 1000)`;
    const started = await spawnDetached({ command: process.execPath, args: ['-e', script], logFd: logFd(), ready: readReady, timeoutMs: 10_000, exitIsFailure: true });
    assert.equal(started.value, 'up');
    assert.ok(typeof started.pid === 'number');
    process.kill(started.pid!);
    await new Promise<void>(resolve => {
      const check = () => (fs.readFileSync(path.join(dir, 'log'), 'utf8').includes('starting') ? (watcher.close(), resolve()) : undefined);
      const watcher = fs.watch(dir, check);
      check();
    });
  });

  it('fails with the exit code when the process ends before it is ready, if that counts as failure', async () => {
    await assert.rejects(
      spawnDetached({ command: process.execPath, args: ['-e', 'process.exit(3)'], logFd: logFd(), ready: readReady, timeoutMs: 30_000, exitIsFailure: true }),
      (error: unknown) => error instanceof DetachedStartError && error.code === 3,
    );
  });

  it('keeps trying until the deadline when an early exit does not count (another process may become ready)', async () => {
    let tries = 0;
    await assert.rejects(
      spawnDetached({ command: process.execPath, args: ['-e', 'process.exit(0)'], logFd: logFd(), ready: () => (++tries, undefined), timeoutMs: 300, exitIsFailure: false }),
      (error: unknown) => error instanceof DetachedStartError && error.code === undefined && /not ready within/.test(error.message),
    );
    assert.ok(tries >= 2, `tried ${tries} times`);
  });
});
