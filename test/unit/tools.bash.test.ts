import { strict as assert } from 'node:assert';
import { readFileSync, watch } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BASH_MAX_OUTPUT_CHARS, DRAIN_MS, KILL_GRACE_MS, bashTool } from '../../src/runtime/tools/bash';
import { runTool } from '../../src/runtime/tools/registry';
import type { ToolContext, ToolOutput } from '../../src/runtime/tools/types';

/** Alive and not a zombie (a killed orphan may linger unreaped under a container's PID 1). */
/**
 * Signals are delivered asynchronously: the tool returns once bash has exited, and a member of its group
 * may still be on its way out. Waits (bounded) for the process to be gone; true if it still runs.
 */
async function survives(pid: number, withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return true;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return false;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves when `file` appears in `dir` (written atomically by rename), by fs events rather than polling. */
function whenFileAppears(dir: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir);
    const check = () => {
      fs.readFile(path.join(dir, file), 'utf8').then(text => {
        watcher.close();
        resolve(text);
      }, () => undefined);
    };
    watcher.on('change', check);
    watcher.on('error', reject);
    check(); // it may already be there
  });
}

/** Runs `fn` with process.env[name] set to `value`, restoring it after. */
async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

describe('tools: bash', function () {
  this.timeout(20_000); // real processes on a busy machine
  let root: string;
  let ctx: ToolContext;
  const leftovers: number[] = [];
  // As the runtime tests run it (test/runtime/harness.ts, TEST_RUNTIME_ENV): `bash -c`, which skips a login
  // profile that may start pyenv and the like (170 ms of CPU a call here); the login shell is checked in
  // sandbox.commandPlan.
  let login: string | undefined;
  before(() => {
    login = process.env.FORK_AGENTS_BASH_LOGIN;
    process.env.FORK_AGENTS_BASH_LOGIN = '0';
  });
  after(() => {
    if (login === undefined) delete process.env.FORK_AGENTS_BASH_LOGIN;
    else process.env.FORK_AGENTS_BASH_LOGIN = login;
  });

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-bash-')));
    ctx = { root, signal: new AbortController().signal };
  });
  afterEach(async () => {
    for (const pid of leftovers.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await fs.rm(root, { recursive: true, force: true });
  });

  it('runs in the root and returns stdout and stderr with the exit code', async () => {
    const out = await runTool(bashTool, { command: 'pwd; echo to-out; echo to-err >&2' }, ctx);
    assert.equal(out.isError, false);
    assert.ok(out.content.startsWith(`${root}\n`), out.content);
    assert.match(out.content, /to-out/);
    assert.match(out.content, /to-err/);
    assert.match(out.content, /\[Exit code: 0\]$/);
  });

  it('reports a non-zero exit code as an error result', async () => {
    const out = await runTool(bashTool, { command: 'echo failing; exit 3' }, ctx);
    assert.equal(out.isError, true);
    assert.equal(out.content, 'failing\n\n[Exit code: 3]');
  });

  it('says when there is no output, and gives stdin EOF', async () => {
    assert.equal((await runTool(bashTool, { command: 'true' }, ctx)).content, '(no output)\n\n[Exit code: 0]');
    const out = await runTool(bashTool, { command: 'cat; echo after-cat' }, ctx);
    assert.match(out.content, /^after-cat\n/);
  });

  it('caps long output, keeping head and tail', async () => {
    const out = await runTool(bashTool, { command: 'echo START; head -c 200000 /dev/zero | tr "\\0" x; echo; echo END' }, ctx);
    assert.ok(out.content.length < BASH_MAX_OUTPUT_CHARS + 200, `${out.content.length}`);
    assert.ok(out.content.startsWith('START\nxxx'));
    assert.match(out.content, /characters of output omitted/);
    assert.match(out.content, /xxx\nEND\n\n\[Exit code: 0\]$/);
  });

  it('kills the whole process group on timeout', async () => {
    // No login profile (see the knobs above), so the command surely reaches `sleep` well before the timeout.
    const out: ToolOutput = await runTool(bashTool, { command: 'sleep 100 & echo "sleep-pid=$!"; wait', timeout_ms: 1000 }, ctx);
    const pid = Number(/sleep-pid=(\d+)/.exec(out.content)?.[1]);
    assert.ok(pid > 0, out.content);
    leftovers.push(pid);
    assert.equal(out.isError, true);
    assert.match(out.content, /\[Timed out after 1 s; the command and all its child processes were killed\.\]$/);
    assert.equal(await survives(pid), false, `sleep ${pid} survived the timeout`);
  });

  it('kills the whole process group when the signal aborts', async () => {
    const controller = new AbortController();
    const command = 'sleep 100 & echo $! > pid.tmp && mv pid.tmp pid; wait';
    const result = runTool(bashTool, { command }, { root, signal: controller.signal });
    const pid = Number(await whenFileAppears(root, 'pid'));
    leftovers.push(pid);
    assert.equal(isRunning(pid), true);
    controller.abort();
    const out = await result;
    assert.equal(out.isError, true);
    assert.match(out.content, /\[Cancelled; the command and all its child processes were killed\.\]$/);
    assert.equal(await survives(pid), false, `sleep ${pid} survived the cancel`);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const controller = new AbortController();
    const command = "trap '' TERM; sleep 100 & echo $! > pid.tmp && mv pid.tmp pid; wait";
    // 100 ms between SIGTERM and SIGKILL instead of 2 s (KILL_GRACE_MS, checked below): the escalation, not the wait.
    const out = await withEnv('FORK_AGENTS_BASH_KILL_GRACE_MS', '100', async () => {
      const result = runTool(bashTool, { command }, { root, signal: controller.signal });
      const pid = Number(await whenFileAppears(root, 'pid'));
      leftovers.push(pid);
      controller.abort();
      return { ...(await result), pid };
    });
    const pid = out.pid;
    assert.match(out.content, /\[Cancelled; the command and all its child processes were killed\.\]$/);
    assert.equal(await survives(pid), false, `sleep ${pid} survived SIGKILL`);
  });

  it('does not start when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const out = await runTool(bashTool, { command: 'touch ran' }, { root, signal: controller.signal });
    assert.equal(out.isError, true);
    assert.match(out.content, /Cancelled before the command started/);
    await assert.rejects(fs.access(path.join(root, 'ran')));
  });

  it('returns when the shell exits even if a background child keeps the output open', async () => {
    // 300 ms of draining instead of 1 s (DRAIN_MS, checked below): the drain, not the wait; long enough that
    // output already in the pipe is read first even when a busy machine pauses this process.
    const out = await withEnv('FORK_AGENTS_BASH_DRAIN_MS', '300', () => runTool(bashTool, { command: '(sleep 100 & echo "bg-pid=$!"); echo done' }, ctx));
    const pid = Number(/bg-pid=(\d+)/.exec(out.content)?.[1]);
    assert.ok(pid > 0, out.content);
    leftovers.push(pid); // it is meant to outlive the call; the suite cleans it up
    assert.match(out.content, /\ndone\n/);
    assert.match(out.content, /Background processes still hold the output open/);
    assert.match(out.content, /\[Exit code: 0\]$/);
  });

  it('rejects malformed input clearly', async () => {
    for (const [input, pattern] of [
      [{}, /missing required field "command"/],
      [{ command: '   ' }, /command is empty/],
      [{ command: 'ls', timeout_ms: 0 }, /"timeout_ms" must be an integer from 1 to 600000, got 0/],
      [{ command: 'ls', timeout_ms: 600001 }, /"timeout_ms" must be an integer from 1 to 600000/],
      [{ command: 'ls', timeout: 5 }, /unknown field "timeout"/],
      [{ command: ['ls'] }, /"command" must be a string, got an array/],
    ] as Array<[unknown, RegExp]>) {
      const out = await runTool(bashTool, input, ctx);
      assert.equal(out.isError, true);
      assert.match(out.content, pattern);
    }
  });

  it('describes itself in one line without throwing', () => {
    assert.equal(bashTool.describe({ command: 'npm test\nnpm run lint' }), 'Run npm test …');
    assert.equal(bashTool.describe(undefined), 'Run a command');
    assert.equal(bashTool.describe({ command: 7 }), 'Run a command');
  });

  it('waits 2 s between SIGTERM and SIGKILL and drains for 1 s in production', () => {
    assert.equal(KILL_GRACE_MS, 2_000);
    assert.equal(DRAIN_MS, 1_000);
  });
});
