// What a started fork promises (docs/design.md §4.7, ARCHITECTURE.md "What a started fork promises"): when
// fork/start answers, the fork's file is on disk — its bytes (fdatasync) and its name in the sessions
// folder (fsync of the folder) — and nothing that depends on it (the answer, a state notice naming the fork,
// its first model request) was handed to the kernel before both flushes returned. A power loss cannot be
// staged in a test, so the order is read from the system calls themselves: the runtime runs under strace
// (CI installs it), is killed with SIGKILL right after the answer, and the fork revives in the next runtime.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { exited, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

/** A Node that runs under strace, logging file and socket calls of every thread to `<dir>/strace.<pid>`. */
function tracedNode(dir: string): string {
  const wrapper = path.join(dir, 'node');
  const calls = 'openat,fdatasync,fsync,close,write,writev,read';
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

  it('flushes the bootstrap and its folder entry before the answer and the first request, and a SIGKILL right after the answer loses nothing', async () => {
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

    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'survive the kill', isolation: 'shared' });
    await killRuntime(pid);
    firstRuntime = false;
    release();
    await exited(stracePid);

    const calls = returnedCalls(fs.readFileSync(path.join(dir, `strace.${stracePid}`), 'utf8'));
    const sessionsDir = path.join(h.storeDir, 'sessions');
    const created = calls.findIndex(c => c.name === 'openat' && c.args.includes(`${sessionsDir}/${fork.id}.jsonl"`) && c.args.includes('O_EXCL'));
    assert.ok(created >= 0, 'the bootstrap file is created with O_EXCL');
    const dataFlushed = flushOf(calls, created, fdOf(calls[created]), ['fdatasync', 'fsync']);
    assert.ok(dataFlushed > created, 'the bootstrap file is flushed');
    // The folder's fsync that counts began after the file existed (a folder fsync covers the names made before it).
    const folderOpens = calls.map((c, i) => ({ c, i })).filter(({ c, i }) => i > created && c.name === 'openat' && c.args.includes(`"${sessionsDir}"`));
    const folderFlushed = folderOpens.map(({ c, i }) => flushOf(calls, i, fdOf(c), ['fsync', 'fdatasync'])).filter(i => i > 0).sort((a, b) => a - b)[0] ?? -1;
    assert.ok(folderFlushed > created, 'the sessions folder is flushed after the file was made');
    const durableAt = Math.max(dataFlushed, folderFlushed);

    // Everything the runtime said or sent that names the fork, and every model request after fork/start arrived.
    const askedAt = calls.findIndex(c => c.name === 'read' && c.args.includes("'method':'fork/start'"));
    assert.ok(askedAt >= 0 && askedAt < created, 'fork/start was read before the file was made');
    const writes = calls.map((c, i) => ({ c, i })).filter(({ c, i }) => i > askedAt && (c.name === 'write' || c.name === 'writev'));
    const naming = writes.filter(({ c }) => c.args.includes(`'id':'${fork.id}'`) && c.args.includes('Content-Length'));
    const answer = naming.find(({ c }) => c.args.includes("'result':{"));
    assert.ok(answer, 'the answer to fork/start is in the trace');
    for (const { i, c } of naming) assert.ok(i > durableAt, `written before the fork was durable: ${c.args.slice(0, 160)}`);
    for (const { i } of writes.filter(({ c }) => c.args.includes('POST /v1/messages'))) assert.ok(i > durableAt, 'a model request went out before the fork was durable');

    // The next runtime finds the fork interrupted and revives it from its bootstrap.
    await h.reconnect();
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.match(done.report ?? '', /revived and done/);
    assert.ok(h.fake.requests.filter(isForkRequest).length >= 1);
  });
});
