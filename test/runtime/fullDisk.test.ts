// A full disk. The store lives on a small tmpfs; long answers fill it. The turn that cannot be
// saved fails with a clear error, the runtime stays up, nothing committed is lost and no fragment remains.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionList } from '../../src/common/protocol/runtime';
import type { SendResult } from '../../src/common/protocol/runtime';
import { readJsonl } from '../../src/runtime/session/jsonl';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

function jsonlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).filter(name => name.endsWith('.jsonl')).map(name => path.join(dir, name));
}

describe('runtime: a full disk fails one turn, not the store', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  let mountPoint: string;
  let mounted = false;

  before(function () {
    mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-tmpfs-'));
    if (process.getuid?.() !== 0) {
      console.log('      skipped: mounting a small tmpfs needs root');
      this.skip();
    }
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=640k', 'tmpfs', mountPoint]);
      mounted = true;
    } catch (error) {
      console.log(`      skipped: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`);
      this.skip();
    }
  });
  after(async () => {
    await h?.dispose();
    if (mounted) execFileSync('umount', ['-l', mountPoint]);
  });

  it('fails only the turn that cannot be saved, keeps the runtime up, and loses no committed entry', async () => {
    const store = path.join(mountPoint, 'store');
    h = await startHarness({ storeDir: store });
    const filler = path.join(mountPoint, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(96 * 1024));
    const pid = h.runtimePid();
    const answer = (n: number) => `answer ${n}: ${'x'.repeat(30_000)}`;

    let sessionId: string | undefined;
    let failure: { result?: SendResult; rejected?: Error } | undefined;
    for (let n = 0; n < 60 && !failure; n++) {
      h.fake.enqueue(say(answer(n)));
      try {
        const result = await h.send(`prompt ${n}`, { sessionId });
        sessionId = result.sessionId;
        if (result.stopReason === 'error') failure = { result };
      } catch (error) {
        failure = { rejected: error as Error };
      }
    }
    assert.ok(failure, 'the disk filled up');
    const message = failure.result?.error?.message ?? failure.rejected!.message;
    assert.match(message, /Could not save to the transcript .*: the disk is full \(ENOSPC\)/);
    assert.equal(h.runtimePid(), pid, 'the same runtime is still serving');
    await sendRequest(h.client.endpoint, sessionList, {});

    // A fork started on the full disk: refused or failed, never the runtime's end.
    const forkOutcome = await sendRequest(h.client.endpoint, forkStart, { sessionId: sessionId!, directive: 'on a full disk', isolation: 'shared' })
      .then(fork => sendRequest(h!.client.endpoint, forkWait, { forkId: fork.id }).then(done => `fork ${done.state}`), (error: Error) => `refused: ${error.message}`);
    assert.match(forkOutcome, /refused: .*disk is full|fork failed/);
    assert.equal(h.runtimePid(), pid);

    const before = (await h.transcript(sessionId!)).entries;
    for (const file of jsonlFiles(store)) {
      const read = readJsonl(file);
      assert.equal(read.tornBytes, 0, `${file} ends on a complete record`);
      assert.equal(read.skippedLines, 0, `${file} has no fragment glued to a line`);
    }

    // Space again: the session goes on, and after a restart everything committed is there.
    fs.rmSync(filler);
    h.fake.enqueue(say('after the disk was freed'));
    const next = await h.send('go on', { sessionId });
    assert.equal(next.text, 'after the disk was freed');
    const committed = (await h.transcript(sessionId!)).entries.map(e => e.id);
    await killRuntime(pid);
    await h.reconnect();
    const revived = (await h.transcript(sessionId!)).entries.map(e => e.id);
    assert.deepEqual(revived, committed, 'every committed entry survived the restart');
    assert.deepEqual(revived.slice(0, before.length), before.map(e => e.id));
    const answers = (await h.transcript(sessionId!)).entries.filter(e => e.kind === 'response').length;
    console.log(`      ${answers} answers of 30 KB committed on a 640 KB tmpfs; the failing turn: ${message.slice(0, 120)}`);
  });
});
