// What the bash tool starts does not outlive the runtime, setsid children die on timeout, and
// a fork in `ask` mode with no editor connected is denied after a bounded wait instead of hanging.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { toolRuns } from './gitRepo';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

/** Alive and not a zombie (a killed child of a dead parent may linger as a zombie until init reaps it). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** Waits until `file` holds `count` lines (the command writes its pids there), by watching its folder. */
async function pidsIn(file: string, count: number): Promise<number[]> {
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  const watcher = fs.watch(path.dirname(file));
  try {
    while (read().length < count) await new Promise(resolve => watcher.once('change', resolve));
    return read();
  } finally {
    watcher.close();
  }
}

async function gone(pids: number[]): Promise<boolean> {
  // SIGKILL lands at once, but the kernel finishes tearing a process down asynchronously: give it a few turns.
  for (let i = 0; i < 200 && pids.some(running); i++) await new Promise(resolve => setTimeout(resolve, 10));
  return !pids.some(running);
}

describe('runtime: no leftover processes, no endless approval wait', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h.dispose());

  it('SIGTERM to the runtime kills the bash tool\'s command, its background and setsid children, and earlier calls\' background jobs', async () => {
    h = await startHarness();
    const pidFile = path.join(h.root, 'pids');
    h.fake.enqueue(
      call(['bash', { command: `(sleep 301 >/dev/null 2>&1 &  echo $! >> ${pidFile})` }]),
      call(['bash', { command: `sleep 302 & echo $! >> ${pidFile}; setsid sleep 303 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait` }]),
    );
    void h.send('start things').catch(() => undefined);
    const pids = await pidsIn(pidFile, 4);
    assert.ok(pids.every(running), 'all four are running before the runtime stops');
    const runtime = h.runtimePid();
    process.kill(runtime, 'SIGTERM');
    assert.ok(await gone([runtime]), 'the runtime exited');
    assert.ok(await gone(pids), `none of ${pids.join(', ')} survived the runtime`);
  });

  it('a timeout kills a setsid child too', async () => {
    h = await startHarness();
    const pidFile = path.join(h.root, 'pids');
    h.fake.enqueue(call(['bash', { command: `setsid sleep 304 & echo $! >> ${pidFile}; wait`, timeout_ms: 1000 }]), say('done'));
    const sending = h.send('time out');
    const [pid] = await pidsIn(pidFile, 1);
    assert.ok(running(pid));
    const result = await sending;
    const [run] = toolRuns((await h.transcript(result.sessionId)).entries);
    assert.match(run.content, /Timed out after 1 s/);
    assert.ok(await gone([pid]), 'the setsid child was killed with the call');
  });

  it('a fork in ask mode with no editor connected is denied after a bounded wait, saying what would help', async () => {
    process.env.FORK_AGENTS_APPROVAL_WAIT_MS = '300';
    try {
      h = await startHarness({ config: { approvalMode: 'ask' } });
    } finally {
      delete process.env.FORK_AGENTS_APPROVAL_WAIT_MS;
    }
    let forkRequests = 0;
    h.fake.setResponder(r => {
      if (!r.rawBody.includes('<fork-boilerplate>')) return say('parent ok');
      return ++forkRequests === 1 ? call(['bash', { command: 'touch should-not-exist' }]) : say('Scope: tried.\nResult: denied.');
    });
    const sessionId = (await h.send('hello')).sessionId;
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'run something', isolation: 'shared' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    const run = toolRuns((await h.transcript(fork.id)).entries).find(r => r.name === 'bash')!;
    assert.equal(run.isError, true);
    // Nobody was asked, so nobody "denied" it; and for a command it names the mode that allows commands (auto-edit would still refuse).
    assert.match(run.content, /^This bash call was not run \(no editor was connected to approve it within 300 ms; .*start the fork with --approval auto \(it allows commands\)\)/);
    assert.doesNotMatch(run.content, /user denied|auto-edit/);
    assert.equal(fs.existsSync(path.join(h.root, 'should-not-exist')), false);
    assert.equal(h.approvals.length, 0, 'the test client does not answer fork approvals, so it was never asked');
  });
});
