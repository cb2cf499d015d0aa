// Code checkpoints, per turn, end to end (runtime process, fake model, real git): the files each turn
// changed (session/turnFiles) and "Diff since here" (session/diffSince + session/checkpointFile).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionCheckpointFile, sessionDiffSince, sessionRewind, sessionTurnFiles } from '../../src/common/protocol/checkpoints';
import { forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import { gitSync, read, scriptForks, write } from './gitRepo';
import { say } from './script';
import { bash, checkpointFixture, writeFile } from './checkpointFixture';

describe('runtime: what each turn changed, from its checkpoints', function () {
  this.timeout(60_000);
  const fx = checkpointFixture();
  const turn = fx.turn.bind(fx);
  const start = (files: Record<string, string>) => fx.start(true, files);

  it('lists each turn\'s added, modified, deleted and renamed files with line counts; Diff since here compares the turn\'s start with the files now', async () => {
    await start({ 'a.txt': 'one\ntwo\nthree\n', 'old-name.txt': 'a file that moves\nwith two lines\n', 'gone.txt': 'bye\n' });
    fs.writeFileSync(path.join(fx.root, 'pic.bin'), Buffer.from([0, 1, 2, 3]));
    gitSync(fx.root, 'add', 'pic.bin');
    gitSync(fx.root, 'commit', '-q', '-m', 'binary');
    const one = await turn(undefined, 'edit things',
      writeFile('a.txt', 'one\nTWO\nthree\nfour\n'),
      bash("rm gone.txt && mv old-name.txt new-name.txt; printf '\\000\\377' > pic.bin; echo hi > fresh.txt"));
    const sessionId = one.sessionId;
    // Between turns, outside the agent: not any turn's change, but part of what changed since.
    write(fx.root, 'user.txt', 'by hand\n');
    const two = await turn(sessionId, 'only one file', writeFile('fresh.txt', 'hi\nthere\n'));
    await turn(sessionId, 'nothing');

    const { turns: listed } = await sendRequest(fx.h.client.endpoint, sessionTurnFiles, { sessionId });
    assert.equal(listed.length, 3);
    assert.equal(listed[0].startEntryId, one.promptEntryId);
    assert.equal(listed[0].endEntryId, one.lastEntryId);
    const byPath = (files: typeof listed[0]['files']) => Object.fromEntries(files.map(f => [f.path, f]));
    assert.deepEqual(byPath(listed[0].files), {
      'a.txt': { path: 'a.txt', status: 'modified', added: 2, removed: 1 },
      'new-name.txt': { path: 'new-name.txt', status: 'renamed', oldPath: 'old-name.txt', added: 0, removed: 0 },
      'gone.txt': { path: 'gone.txt', status: 'deleted', added: 0, removed: 1 },
      'pic.bin': { path: 'pic.bin', status: 'modified', binary: true },
      'fresh.txt': { path: 'fresh.txt', status: 'added', added: 1, removed: 0 },
    });
    assert.deepEqual(listed[1].files, [{ path: 'fresh.txt', status: 'modified', added: 1, removed: 0 }], 'user.txt changed outside the agent, not in turn two');
    assert.equal(listed[1].startEntryId, two.promptEntryId);
    assert.deepEqual(listed[2].files, []);

    // Since turn two's start: its own change and the user's edit after it... and one made just now.
    write(fx.root, 'a.txt', 'rewritten by hand\n');
    const since = await sendRequest(fx.h.client.endpoint, sessionDiffSince, { sessionId, startEntryId: two.promptEntryId });
    assert.equal(since.workTree, fx.root);
    assert.deepEqual(since.files.map(f => [f.path, f.status]).sort(), [['a.txt', 'modified'], ['fresh.txt', 'modified']]);
    const left = await sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId, tree: since.tree, path: 'a.txt' });
    assert.deepEqual(left, { exists: true, content: 'one\nTWO\nthree\nfour\n' });
    assert.deepEqual(await sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId, tree: since.tree, path: 'fresh.txt' }), { exists: true, content: 'hi\n' });

    const sinceOne = await sendRequest(fx.h.client.endpoint, sessionDiffSince, { sessionId, startEntryId: one.promptEntryId });
    assert.deepEqual(sinceOne.files.map(f => f.path).sort(), ['a.txt', 'fresh.txt', 'gone.txt', 'new-name.txt', 'pic.bin', 'user.txt']);
    assert.deepEqual(await sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId, tree: sinceOne.tree, path: 'fresh.txt' }), { exists: false });
    assert.deepEqual(await sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId, tree: sinceOne.tree, path: 'pic.bin' }), { exists: true, binary: true });
    assert.equal(read(fx.root, 'a.txt'), 'rewritten by hand\n', 'looking changes nothing');
  });

  it('refuses what is not the session\'s: other trees, paths out of the tree, unknown turns', async () => {
    await start({ 'a.txt': 'a\n' });
    const one = await turn(undefined, 'edit', writeFile('a.txt', 'b\n'));
    // A tree of the user's repository no checkpoint of this session recorded.
    write(fx.root, 'other.txt', 'other\n');
    gitSync(fx.root, 'add', 'other.txt');
    const head = gitSync(fx.root, 'write-tree').trim();
    await assert.rejects(sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId: one.sessionId, tree: head, path: 'a.txt' }), /not a checkpoint of session/);
    const { turns: listed } = await sendRequest(fx.h.client.endpoint, sessionTurnFiles, { sessionId: one.sessionId });
    const tree = (await sendRequest(fx.h.client.endpoint, sessionDiffSince, { sessionId: one.sessionId, startEntryId: listed[0].startEntryId })).tree;
    await assert.rejects(sendRequest(fx.h.client.endpoint, sessionCheckpointFile, { sessionId: one.sessionId, tree, path: '../etc/passwd' }), /Not a path inside/);
    await assert.rejects(sendRequest(fx.h.client.endpoint, sessionDiffSince, { sessionId: one.sessionId, startEntryId: 'e-nope' }), /No turn of session/);
    await assert.rejects(sendRequest(fx.h.client.endpoint, sessionTurnFiles, { sessionId: 's-nope' }), /s-nope/);
  });
  it("a fork checkpoints its own runs in its worktree: rewind and Fork from here on the fork's earlier message bring that code back", async () => {
    await start({ 'README.md': 'readme\n' });
    const scripts = scriptForks(fx.h);
    scripts.set('keep notes', [writeFile('notes.txt', 'version-one\n'), say('Scope: notes.\nResult: wrote version-one.'), writeFile('notes.txt', 'version-two\n'), say('Scope: notes.\nResult: wrote version-two.')]);
    const chat = await fx.h.send('hello');
    const fork = await sendRequest(fx.h.client.endpoint, forkStart, { sessionId: chat.sessionId, directive: 'keep notes', isolation: 'worktree' });
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    const worktree = fork.worktree!.path;
    assert.equal(read(worktree, 'notes.txt'), 'version-one\n');
    const runOneEnd = (await fx.h.transcript(fork.id)).entries.at(-1)!.id;
    await sendRequest(fx.h.client.endpoint, forkSend, { forkId: fork.id, message: 'now write version two' });
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    assert.equal(read(worktree, 'notes.txt'), 'version-two\n');

    // Each run is a turn of the fork's transcript, with the files it changed.
    const { turns: runs } = await sendRequest(fx.h.client.endpoint, sessionTurnFiles, { sessionId: fork.id });
    assert.deepEqual(runs.map(run => run.files.map(f => [f.path, f.status])), [[['notes.txt', 'added']], [['notes.txt', 'modified']]]);
    assert.equal(runs[0].endEntryId, runOneEnd);

    // Fork from here on the fork's first run: the new worktree starts at version-one.
    const grandchild = await sendRequest(fx.h.client.endpoint, forkStart, { sessionId: fork.id, atEntryId: runOneEnd, directive: 'look again', isolation: 'worktree' });
    assert.equal(read(grandchild.worktree!.path, 'notes.txt'), 'version-one\n', "it starts at the code of the fork's earlier message");
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: grandchild.id })).state, 'completed');

    // Rewind the fork to its first run: its worktree gets version-one back, the main folder is untouched.
    const back = await sendRequest(fx.h.client.endpoint, sessionRewind, { sessionId: fork.id, atEntryId: runOneEnd });
    assert.equal(back.done, true, JSON.stringify(back));
    assert.deepEqual(back.files, [{ path: 'notes.txt', status: 'modified' }]);
    assert.equal(read(worktree, 'notes.txt'), 'version-one\n');
    assert.equal(back.lastEntryId, runOneEnd);
    assert.ok(!fs.existsSync(path.join(fx.root, 'notes.txt')), 'the main folder is not the fork\'s');
    await sendRequest(fx.h.client.endpoint, sessionRewind, { sessionId: fork.id, undo: true });
    assert.equal(read(worktree, 'notes.txt'), 'version-two\n');
  });
});
