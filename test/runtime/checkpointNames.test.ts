// Checkpoints of names that are not UTF-8 (Linux allows any byte but `/` and NUL) end to end: a shell
// makes one, Fork from here starts with it, rewind puts it back under its own bytes and removes it
// again; a `.GIT` folder, which git never records, is left alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionCheckpointFile, sessionDiffSince, sessionRewind, sessionTurnFiles } from '../../src/common/protocol/checkpoints';
import type { RewindParams } from '../../src/common/protocol/checkpoints';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { bytesOf } from '../../src/runtime/checkpoint/pathBytes';
import { read } from './gitRepo';
import { bash, checkpointFixture } from './checkpointFixture';

describe('runtime: checkpoints of names that are not UTF-8', function () {
  this.timeout(60_000);
  const fx = checkpointFixture();
  const rewind = (params: RewindParams) => sendRequest(fx.h.client.endpoint, sessionRewind, params);
  /** `odd<0xff>.txt` under `dir`, as bytes (the only way to name it). */
  const odd = (dir: string) => Buffer.concat([Buffer.from(`${dir}/odd`), Buffer.from([0xff]), Buffer.from('.txt')]);
  const writeOdd = (content: string) => bash(`printf '${content}\\n' > "$(printf 'odd\\377.txt')"`);

  it('Fork from here has the file as it was; rewind restores it, then removes it; .GIT is left alone', async () => {
    await fx.start(true);
    const zero = await fx.turn(undefined, 'look around');
    const sessionId = zero.sessionId;
    const one = await fx.turn(sessionId, 'write version one', writeOdd('version-one'), bash('mkdir -p .GIT && echo x > .GIT/x'));
    await fx.turn(sessionId, 'write version two', writeOdd('version-two'));
    assert.equal(fs.readFileSync(odd(fx.root), 'utf8'), 'version-two\n');

    // The panel: turn two changed it, and its content at turn two's start is turn one's.
    const { turns } = await sendRequest(fx.h.client.endpoint, sessionTurnFiles, { sessionId });
    const [changed] = turns[2].files;
    assert.deepEqual([turns[2].files.length, changed.status, bytesOf(changed.path)], [1, 'modified', odd('').subarray(1)]);
    const since = await sendRequest(fx.h.client.endpoint, sessionDiffSince, { sessionId, startEntryId: turns[2].startEntryId });
    assert.deepEqual(await sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId, tree: since.tree, path: changed.path }), { exists: true, content: 'version-one\n' });

    const fork = await sendRequest(fx.h.client.endpoint, forkStart, { sessionId, atEntryId: one.lastEntryId, directive: 'check the file' });
    assert.equal(fork.isolation, 'worktree');
    assert.equal(fs.readFileSync(odd(fork.worktree!.path), 'utf8'), 'version-one\n', 'the fork starts with the file as it was');
    assert.ok(!fs.existsSync(path.join(fork.worktree!.path, '.GIT')), 'git never records .GIT');
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');

    const back = await rewind({ sessionId, atEntryId: one.lastEntryId });
    assert.equal(back.done, true, JSON.stringify(back));
    assert.equal(back.files.length, 1);
    assert.deepEqual(bytesOf(back.files[0].path), odd('').subarray(1), 'listed under a name that keeps its bytes');
    assert.equal(fs.readFileSync(odd(fx.root), 'utf8'), 'version-one\n', 'rewound under its own name');
    assert.deepEqual(fs.readdirSync(fx.root, { encoding: 'buffer' }).filter(name => name.includes(0xef)), [], 'no file under a garbled name');

    const before = await rewind({ sessionId, atEntryId: zero.lastEntryId, confirm: true });
    assert.equal(before.done, true, JSON.stringify(before));
    assert.ok(!fs.existsSync(odd(fx.root)), 'gone at the turn before it was made');
    assert.equal(read(fx.root, '.GIT/x'), 'x\n', 'never recorded, so never removed');
  });
});
