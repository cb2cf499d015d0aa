// What a started fork promises (docs/design.md §4.7, ARCHITECTURE.md "What a started fork promises"): when
// fork/start answers, the fork's bytes are written in the store's start journal (its own file is made
// beside it, and the journal is enough to bring it back), so a SIGKILL after the answer loses nothing; the journal's fdatasync returns before the fork's first model
// request is handed to the kernel (a power loss cannot erase a fork that spent anything). A power loss
// cannot be staged in a test, so that order is read from the system calls themselves: the runtime runs
// under strace (CI installs it), is killed with SIGKILL once the fork's first request arrived, whatever of the fork's own
// file was not yet flushed with its folder is then removed (what a power loss may take), and the fork
// revives in the next runtime, which writes its file back from the journal. The flush is also held and
// failed on purpose (FORK_AGENTS_START_FLUSH_GATE, startFlushGate.ts): the fork answers, sends nothing
// until the flush is done, survives a SIGKILL meanwhile, and fails, sending nothing, when the flush fails.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ForkSummary } from '../../src/common/forks';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkCancel, forkList, forkStart, forkState, forkWait } from '../../src/common/protocol/forks';
import { sessionDelete } from '../../src/common/protocol/runtime';
import { readFrames } from '../../src/runtime/session/startJournal';
import { START_JOURNAL } from '../../src/runtime/session/sessionStore';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { exited, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

/** A Node that runs under strace, logging file and socket calls of every thread to `<dir>/strace.<pid>`. */
function tracedNode(dir: string): string {
  const wrapper = path.join(dir, 'node');
  const calls = 'openat,fdatasync,fsync,close,write,writev,pwrite64,pwritev,pwritev2,ftruncate,read';
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec strace -f -qq --seccomp-bpf -s 256 -e trace=${calls} -o "${dir}/strace.$$" '${process.execPath}' "$@"\n`, { mode: 0o700 });
  return wrapper;
}

interface Call { line: number; tid: string; name: string; args: string; result: string }

/**
 * strace's lines as calls in the order they returned: a call another thread interrupted is split into
 * "<unfinished ...>" and "<... name resumed>"; it is placed where it resumed (returned), with the
 * arguments of its first half. strace pads a thread id to five columns ("9084  openat(…"), so a machine
 * whose ids have fewer digits has two spaces after it.
 */
function returnedCalls(text: string): Call[] {
  const calls: Call[] = [];
  const open = new Map<string, { name: string; args: string }>();
  // strace quotes strings: a JSON message's quotes come as \" and are matched as plain quotes.
  text.replace(/\\"/g, "'").split('\n').forEach((raw, line) => {
    const unfinished = /^(\d+) +(\w+)\((.*) <unfinished \.\.\.>$/.exec(raw);
    if (unfinished) return void open.set(unfinished[1], { name: unfinished[2], args: unfinished[3] });
    const resumed = /^(\d+) +<\.\.\. (\w+) resumed>(.*)\) += (.*)$/.exec(raw);
    if (resumed) {
      const first = open.get(resumed[1]);
      open.delete(resumed[1]);
      return void calls.push({ line, tid: resumed[1], name: resumed[2], args: (first?.args ?? '') + resumed[3], result: resumed[4] });
    }
    const whole = /^(\d+) +(\w+)\((.*)\) += (.*)$/.exec(raw);
    if (whole) calls.push({ line, tid: whole[1], name: whole[2], args: whole[3], result: whole[4] });
  });
  return calls;
}

const fdOf = (call: Call) => Number(/^(\d+)/.exec(call.result)?.[1] ?? NaN);
const firstArgFd = (call: Call) => Number(/^(\d+)/.exec(call.args)?.[1] ?? NaN);

/** The index of the first call after `from` that flushes `fd` with `name` and succeeds, before fd is closed. */
function flushOf(calls: Call[], from: number, fd: number, names: string[]): number {
  for (let i = from + 1; i < calls.length; i++) {
    const call = calls[i];
    if (firstArgFd(call) !== fd) continue;
    if (names.includes(call.name) && call.result.startsWith('0')) return i;
    if (call.name === 'close') break;
  }
  return -1;
}

/** Resolves once `file` exists (the runtime made it), told by a watch on its folder. */
function appeared(file: string): Promise<void> {
  return new Promise(resolve => {
    const look = () => {
      if (!fs.existsSync(file)) return;
      watcher.close();
      resolve();
    };
    const watcher = fs.watch(path.dirname(file), look);
    // A test that fails waiting must not keep mocha from exiting.
    watcher.unref();
    look();
  });
}

/** Opens the runtime's flush gate (startFlushGate.ts) with `text`, put in place whole. */
function openGate(gate: string, text = 'go'): void {
  fs.writeFileSync(`${gate}.part`, text);
  fs.renameSync(`${gate}.part`, gate);
}

describe('runtime: a started fork is on disk before anything depends on it', function () {
  this.timeout(90_000);
  let h: Harness | undefined;
  let dir: string;
  let release!: () => void;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-durable-'));
  });
  afterEach(async () => {
    release?.();
    await h?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the fork in the start journal before the answer, flushes it before the first request, and a SIGKILL once it asked loses nothing', async () => {
    const held = new Promise<void>(resolve => (release = resolve));
    let firstRuntime = true;
    h = await startHarness({ nodePath: tracedNode(dir) });
    h.fake.setResponder(async r => {
      // The first runtime's fork never gets its answer: it is killed while the fork runs.
      if (isForkRequest(r) && firstRuntime) await held;
      return say(isForkRequest(r) ? 'Scope: revived and done' : 'parent answer');
    });
    const { sessionId } = await h.send('hello');
    const pid = h.runtimePid();
    const stracePid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

    const asked = new Promise<void>(resolve => h!.fake.onRequest(r => isForkRequest(r) && resolve()));
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'survive the kill', isolation: 'shared' });
    // Killed once the fork's first request arrived: its journal's flush returned before (the order checked below).
    await asked;
    await killRuntime(pid);
    firstRuntime = false;
    release();
    await exited(stracePid);

    const calls = returnedCalls(fs.readFileSync(path.join(dir, `strace.${stracePid}`), 'utf8'));
    const sessionsDir = path.join(h.storeDir, 'sessions');
    const journalFile = path.join(h.storeDir, START_JOURNAL);
    const created = calls.findIndex(c => c.name === 'openat' && c.args.includes(`${sessionsDir}/${fork.id}.jsonl"`) && c.args.includes('O_EXCL'));
    assert.ok(created >= 0, 'the bootstrap file is created with O_EXCL');
    const fileFd = fdOf(calls[created]);
    const fileWritten = calls.findIndex((c, i) => i > created && /^(write|pwrite64|writev|pwritev2?)$/.test(c.name) && firstArgFd(c) === fileFd && !c.result.startsWith('-'));
    assert.ok(fileWritten > created, "the fork's own file gets its bytes");
    // The journal: the frame naming the fork written at a position, then that descriptor flushed.
    const journalOpens = calls.map((c, i) => ({ c, i })).filter(({ c }) => c.name === 'openat' && c.args.includes(`${journalFile}"`) && !c.result.startsWith('-'));
    assert.ok(journalOpens.length > 0, 'the start journal is opened');
    const journalFds = new Set(journalOpens.map(({ c }) => fdOf(c)));
    const framed = calls.findIndex(c => /^(pwrite64|pwritev2?)$/.test(c.name) && journalFds.has(firstArgFd(c)) && c.args.includes(`'start':'${fork.id}'`));
    assert.ok(framed >= 0, "the fork's frame is written to the journal");
    const journalFlushed = flushOf(calls, framed, firstArgFd(calls[framed]), ['fdatasync', 'fsync']);
    assert.ok(journalFlushed > framed, 'the journal is flushed after the frame was written');
    // The fork's own file may still be being made when it answers: the journal's frame is enough to bring it back.
    const writtenAt = framed;
    const durableAt = Math.max(journalFlushed, fileWritten);

    // Everything the runtime said or sent that names the fork, and every model request after fork/start arrived.
    const askedAt = calls.findIndex(c => c.name === 'read' && c.args.includes("'method':'fork/start'"));
    assert.ok(askedAt >= 0 && askedAt < created, 'fork/start was read before the file was made');
    const writes = calls.map((c, i) => ({ c, i })).filter(({ c, i }) => i > askedAt && (c.name === 'write' || c.name === 'writev'));
    const naming = writes.filter(({ c }) => c.args.includes(`'id':'${fork.id}'`) && c.args.includes('Content-Length'));
    const answer = naming.find(({ c }) => c.args.includes("'result':{"));
    assert.ok(answer, 'the answer to fork/start is in the trace');
    for (const { i, c } of naming) assert.ok(i > writtenAt, `written before the fork was: ${c.args.slice(0, 160)}`);
    for (const { i } of writes.filter(({ c }) => c.args.includes('POST /v1/messages'))) assert.ok(i > durableAt, 'a model request went out before the fork was durable');

    // What a power loss may take: the fork's file unless its own flush and its folder's returned before the kill.
    const fileFlushed = flushOf(calls, created, fileFd, ['fdatasync', 'fsync']);
    const folderOpens = calls.map((c, i) => ({ c, i })).filter(({ c, i }) => i > fileFlushed && fileFlushed > 0 && c.name === 'openat' && c.args.includes(`"${sessionsDir}"`));
    const folderFlushed = folderOpens.map(({ c, i }) => flushOf(calls, i, fdOf(c), ['fsync', 'fdatasync'])).some(i => i > 0);
    if (!folderFlushed) {
      assert.ok(readFrames(fs.readFileSync(journalFile)).some(f => f.id === fork.id), 'the journal keeps the frame until the file is durable on its own');
      fs.rmSync(path.join(sessionsDir, `${fork.id}.jsonl`));
    }

    // The next runtime finds the fork interrupted (its file written back from the journal) and revives it from its bootstrap.
    await h.reconnect();
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.match(done.report ?? '', /revived and done/);
    assert.ok(h.fake.requests.filter(isForkRequest).length >= 1);
  });

  it("writes back a started fork whose file a power loss took, from the start journal, and runs it", async () => {
    h = await startHarness();
    h.fake.setResponder(async r => say(isForkRequest(r) ? 'Scope: written back and done' : 'parent answer'));
    const { sessionId } = await h.send('hello');
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'come back', isolation: 'shared' });
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    await killRuntime(h.runtimePid());
    // The state a power loss leaves when it comes after the answer and before the file's own flush: the
    // journal holds the file's start (its header and bootstrap lines), the file is gone.
    const file = path.join(h.storeDir, 'sessions', `${fork.id}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const start = Buffer.from(lines.slice(0, 2).join('\n') + '\n', 'utf8');
    assert.match(lines[1], /"bootstrap"/);
    fs.writeFileSync(path.join(h.storeDir, START_JOURNAL), Buffer.concat([Buffer.from(`${JSON.stringify({ start: fork.id, bytes: start.length })}\n`), start]), { mode: 0o600 });
    fs.rmSync(file);
    await h.reconnect();
    assert.ok((await sendRequest(h.client.endpoint, forkList, {})).forks.some(f => f.id === fork.id), 'the fork is listed again');
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.match(done.report ?? '', /written back and done/);
    assert.equal(fs.readFileSync(file).subarray(0, start.length).equals(start), true);
    assert.equal(fs.statSync(path.join(h.storeDir, START_JOURNAL)).size, 0);
  });

  it('a fork cancelled and deleted the moment it started (before its own file is made) is gone for good', async () => {
    h = await startHarness();
    h.fake.setResponder(async r => say(isForkRequest(r) ? 'Scope: should not run' : 'parent answer'));
    const { sessionId } = await h.send('hello');
    // Its own file waits for the burst of starts to end; the cancel and the delete come in the same moment.
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'gone at once', isolation: 'shared' });
    let late = false;
    const [cancelled, deleted] = await Promise.all([
      sendRequest(h.client.endpoint, forkCancel, { forkId: fork.id }),
      sendRequest(h.client.endpoint, sessionDelete, { forkId: fork.id }).catch(async (error: unknown) => {
        // On a loaded machine the cancel can come after the run began, which then ends a moment later (and
        // the moment before the file is made is gone): deleted once it has ended. Any other refusal fails.
        if (!/is running; cancel it first/.test(String(error))) throw error;
        late = true;
        await sendRequest(h!.client.endpoint, forkWait, { forkId: fork.id });
        return sendRequest(h!.client.endpoint, sessionDelete, { forkId: fork.id });
      }),
    ]);
    assert.deepEqual(cancelled, { cancelled: true });
    assert.equal(deleted.deleted, fork.id);
    // Whatever the store still had under way for it has settled once a later fork is durable and done.
    const later = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'a later one', isolation: 'shared' });
    await sendRequest(h.client.endpoint, forkWait, { forkId: later.id });
    const file = path.join(h.storeDir, 'sessions', `${fork.id}.jsonl`);
    assert.equal(fs.existsSync(file), false, 'no file appeared after the delete');
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const { forks } = await sendRequest(h.client.endpoint, forkList, {});
    assert.deepEqual(forks.filter(f => f.id === fork.id), [], 'the next runtime does not bring it back');
    assert.equal(fs.existsSync(file), false);
    // Cancelled before its run began, it sent nothing (a run cancelled once begun may have sent its first request).
    if (!late) assert.equal(h.fake.requests.filter(r => r.rawBody.includes('gone at once')).length, 0, 'it sent nothing');
  });

  describe('with the start journal\'s flush held or failed', () => {
    let gate: string;
    let states: ForkSummary[];
    const startGated = async (respond: string) => {
      gate = path.join(dir, 'gate', 'open');
      fs.mkdirSync(path.dirname(gate));
      h = await startHarness({ env: { FORK_AGENTS_START_FLUSH_GATE: gate } });
      h.fake.setResponder(async r => say(isForkRequest(r) ? respond : 'parent answer'));
      states = [];
      onNotification(h.client.endpoint, forkState, params => states.push(params.fork));
      return (await h.send('hello')).sessionId;
    };
    const becomes = (id: string, state: string) => new Promise<void>(resolve => {
      if (states.some(s => s.id === id && s.state === state)) return resolve();
      onNotification(h!.client.endpoint, forkState, params => params.fork.id === id && params.fork.state === state && resolve());
    });
    const forkRequests = () => h!.fake.requests.filter(isForkRequest).length;

    it('answers fork/start while the flush is held, and sends no request of the fork until it is done', async () => {
      const sessionId = await startGated('Scope: flushed, then done');
      const fork = await sendRequest(h!.client.endpoint, forkStart, { sessionId, directive: 'wait for the disk', isolation: 'shared' });
      await appeared(`${gate}.held`);
      // Admitted, and a whole turn of the parent answered meanwhile: time for a request that did not wait.
      await becomes(fork.id, 'running');
      await h!.send('meanwhile', { sessionId });
      assert.equal(forkRequests(), 0, 'no request of the fork before its flush');
      openGate(gate);
      const done = await sendRequest(h!.client.endpoint, forkWait, { forkId: fork.id });
      assert.equal(done.state, 'completed');
      assert.match(done.report ?? '', /flushed, then done/);
      assert.equal(forkRequests(), 1);
    });

    it('brings back a fork whose runtime was killed after the answer and before the flush', async () => {
      const sessionId = await startGated('Scope: back after the kill');
      const fork = await sendRequest(h!.client.endpoint, forkStart, { sessionId, directive: 'outlive the runtime', isolation: 'shared' });
      await appeared(`${gate}.held`);
      await killRuntime(h!.runtimePid());
      assert.equal(forkRequests(), 0);
      // Written, never flushed: the kernel keeps the frame (and the fork's file) for the next runtime.
      assert.ok(readFrames(fs.readFileSync(path.join(h!.storeDir, START_JOURNAL))).some(f => f.id === fork.id));
      openGate(gate);
      await h!.reconnect();
      assert.ok((await sendRequest(h!.client.endpoint, forkList, {})).forks.some(f => f.id === fork.id), 'the fork is listed again');
      const done = await sendRequest(h!.client.endpoint, forkWait, { forkId: fork.id });
      assert.equal(done.state, 'completed');
      assert.match(done.report ?? '', /back after the kill/);
    });

    it('fails a fork whose flush failed, sending nothing for it, and the parent loses nothing', async () => {
      const sessionId = await startGated('Scope: should never run');
      const fork = await sendRequest(h!.client.endpoint, forkStart, { sessionId, directive: 'meet a failing disk', isolation: 'shared' });
      // Failed once the fork is admitted and waits for it, as a slow disk's EIO comes.
      await appeared(`${gate}.held`);
      await becomes(fork.id, 'running');
      await h!.send('meanwhile', { sessionId });
      openGate(gate, 'fail');
      const done = await sendRequest(h!.client.endpoint, forkWait, { forkId: fork.id });
      assert.equal(done.state, 'failed');
      assert.match(done.error ?? '', /did not run: its start could not be flushed to disk .*EIO.*nothing was sent for it/);
      assert.equal(forkRequests(), 0);
      // The parent goes on with all it had.
      await h!.send('still there?', { sessionId });
      const texts = JSON.stringify((await h!.transcript(sessionId)).entries);
      for (const text of ['hello', 'meanwhile', 'still there?']) assert.ok(texts.includes(text), `the parent's transcript keeps ${text}`);
      assert.equal(texts.split('parent answer').length - 1, 3);
    });
  });
});
