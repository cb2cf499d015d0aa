// One runtime owns a store: a second one started on it (by another window, the CLI, a race) exits without
// reading or cleaning anything, so it can neither cut a live fork file nor delete a segment being written.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { runtimeInfoPath, socketPathFor } from '../../src/ipc/socketPath';
import { socketAccepts } from '../../src/ipc/socketProbe';
import { RUNTIME_SCRIPT, isAlive, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const isForkRequest = (body: string) => body.includes('<fork-boilerplate>');

function startRuntime(storeDir: string, env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [RUNTIME_SCRIPT, '--store', storeDir, '--idle-exit-ms', '60000'], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', chunk => (stderr += chunk));
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** Resolves once the runtime's log says it serves, or with false when it exits first. */
function serving(runtime: ReturnType<typeof startRuntime>): Promise<boolean> {
  return new Promise(resolve => {
    const check = () => {
      if (/ serving /.test(runtime.stderr())) resolve(true);
    };
    runtime.child.stderr!.on('data', check);
    void runtime.exited.then(() => resolve(/ serving /.test(runtime.stderr())));
  });
}


describe('runtime: one owner per store', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it('a second runtime leaves a live fork file and an unfinished segment alone', async () => {
    h = await startHarness();
    h.fake.setResponder(r => say(isForkRequest(r.rawBody) ? 'Scope: done.' : 'noted'));
    const { sessionId } = await h.send('hello');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'report', isolation: 'shared' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    // The first runtime mid-append (a line not yet finished) and mid-way through writing a segment.
    const forkFile = path.join(h.storeDir, 'sessions', `${fork.id}.jsonl`);
    fs.appendFileSync(forkFile, '{"type":"entry","half');
    const unfinished = path.join(h.storeDir, 'segments', `${'a'.repeat(64)}.seg.tmp`);
    fs.writeFileSync(unfinished, 'being written');
    const forkBytes = fs.readFileSync(forkFile);

    const second = startRuntime(h.storeDir);
    assert.equal(await second.exited, 0);
    assert.match(second.stderr(), /another runtime already serves this store/);
    assert.deepEqual(fs.readFileSync(forkFile), forkBytes, 'the live fork file was not cut');
    assert.ok(fs.existsSync(unfinished), 'the segment being written was not removed');
    assert.ok(isAlive(h.runtimePid()), 'the first runtime still serves');
  });

  it('two runtimes started together on one store: exactly one serves, every time', async () => {
    // 10 rounds in `npm test`; the daily loop (`npm run test:quick`) sets FORK_AGENTS_TEST_OWNER_ROUNDS to 4,
    // which still starts both contenders with and without a stale socket, with every assertion.
    const rounds = Number(process.env.FORK_AGENTS_TEST_OWNER_ROUNDS) > 0 ? Number(process.env.FORK_AGENTS_TEST_OWNER_ROUNDS) : 10;
    let oneServed = 0;
    const failures: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const storeDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-race-')), 'store');
      // A stale socket file (a runtime killed earlier) so that both contenders find something to remove.
      if (round % 2 === 1) {
        const stale = net.createServer();
        fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 });
        await new Promise<void>(resolve => stale.listen(socketPathFor(storeDir), () => resolve()));
        // Closing the server unlinks the socket; a copy left behind by a killed process is what stays.
        fs.linkSync(socketPathFor(storeDir), `${socketPathFor(storeDir)}.keep`);
        await new Promise<void>(resolve => stale.close(() => resolve()));
        fs.renameSync(`${socketPathFor(storeDir)}.keep`, socketPathFor(storeDir));
      }
      const runtimes = [startRuntime(storeDir), startRuntime(storeDir)];
      const served = await Promise.all(runtimes.map(serving));
      const alive = runtimes.filter(r => r.child.exitCode === null && r.child.signalCode === null);
      const recorded = (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
      const ok = served.filter(Boolean).length === 1 && alive.length === 1 && alive[0].child.pid === recorded && (await socketAccepts(socketPathFor(storeDir)));
      if (ok) oneServed++;
      else failures.push(`round ${round}: served ${served.join('/')}, alive ${alive.length}`);
      for (const runtime of alive) await killRuntime(runtime.child.pid!);
    }
    assert.deepEqual(failures, []);
    assert.equal(oneServed, rounds);
  });

  it('scratch index folders a killed runtime left in the temporary folder are removed at start; live ones and old bare files stay or go by age', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-scratch-'));
    const dead = path.join(tmp, 'fork-agents-index-999999-abcdef');
    const live = path.join(tmp, `fork-agents-index-${process.pid}-abcdef`);
    const oldFile = path.join(tmp, 'fork-agents-index-0b6f7e2a-1c1d-4a3e-9f00-5d7a1b2c3d4e');
    const recentFile = path.join(tmp, 'fork-agents-index-1f6f7e2a-1c1d-4a3e-9f00-5d7a1b2c3d4e');
    for (const dir of [dead, live]) fs.mkdirSync(dir, { mode: 0o700 });
    fs.writeFileSync(path.join(dead, 'index'), 'paths and blobs');
    for (const file of [oldFile, recentFile]) fs.writeFileSync(file, 'an old runtime\'s scratch index');
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(oldFile, hourAgo, hourAgo);
    const storeDir = path.join(tmp, 'store');
    const runtime = startRuntime(storeDir, { ...process.env, TMPDIR: tmp });
    assert.equal(await serving(runtime), true);
    // The cleanup runs at start, before or just after the socket opens: wait for its log line.
    while (!/removed 2 scratch index folder/.test(runtime.stderr())) await new Promise(resolve => runtime.child.stderr!.once('data', resolve));
    assert.equal(fs.existsSync(dead), false, 'the dead runtime\'s folder went');
    assert.equal(fs.existsSync(oldFile), false, 'the old bare file went');
    assert.ok(fs.existsSync(live) && fs.existsSync(recentFile), 'a live runtime\'s folder and a recent file stayed');
    await killRuntime(runtime.child.pid!);
  });
});
