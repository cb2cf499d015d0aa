// Code checkpoints end to end: the runtime process, the fake model scripting file changes, real git.
// Fork from here starts at a message's code; session/rewind puts files and conversation back, asks about
// files changed outside the agent, and can itself be undone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionRewind } from '../../src/common/protocol/checkpoints';
import type { RewindParams } from '../../src/common/protocol/checkpoints';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { gitSync, isForkRequest, read, write } from './gitRepo';
import { TEST_KEY } from './harness';
import { say } from './script';
import { cliRunner, lastJson } from './cliRunner';
import { bash, checkpointFixture, writeFile } from './checkpointFixture';

describe('runtime: code checkpoints', function () {
  this.timeout(60_000);
  const fx = checkpointFixture();
  const turn = fx.turn.bind(fx);
  const start = fx.start.bind(fx);
  const rewind = (params: RewindParams) => sendRequest(fx.h.client.endpoint, sessionRewind, params);
  const lastRequestText = () => JSON.stringify(fx.h.fake.requests.filter(r => !isForkRequest(r)).at(-1)!.body.messages);

  it('notes.txt: Fork from here on turn one has version-one; rewind restores it, the next request lacks turn two; the rewind can be undone', async () => {
    await start(true);
    const one = await turn(undefined, 'write version one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    await turn(sessionId, 'write version two', writeFile('notes.txt', 'version-two\n'));
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n');

    const fork = await sendRequest(fx.h.client.endpoint, forkStart, { sessionId, atEntryId: one.lastEntryId, directive: 'check the notes' });
    assert.equal(fork.isolation, 'worktree');
    assert.equal(read(fork.worktree!.path, 'notes.txt'), 'version-one\n', 'the fork starts at the code of the message it forks from');
    assert.equal(fork.worktree!.carried, 1);
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n', 'the main tree is untouched by the fork');
    assert.equal(gitSync(fx.root, 'status', '--porcelain'), '?? notes.txt\n', "the user's index is untouched");
    assert.equal(gitSync(fx.root, 'stash', 'list'), '');
    assert.deepEqual(gitSync(fx.root, 'for-each-ref', '--format=%(refname)').split('\n').filter(r => !r.startsWith('refs/heads/fork/') && r), ['refs/heads/main']);

    const rewound = await rewind({ sessionId, atEntryId: one.lastEntryId });
    assert.equal(rewound.done, true);
    assert.deepEqual(rewound.files, [{ path: 'notes.txt', status: 'modified' }]);
    assert.equal(rewound.lastEntryId, one.lastEntryId);
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
    const records = fs.readFileSync(path.join(fx.h.storeDir, 'sessions', `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line));
    assert.ok(records.some(r => r.type === 'rewind' && r.toEntryId === one.lastEntryId && r.code?.paths.includes('notes.txt')), 'an append-only rewind record');
    assert.equal(records.filter(r => r.type === 'checkpoint').length, 4, 'a start and an end checkpoint per turn');

    const undone = await rewind({ sessionId, undo: true });
    assert.equal(undone.done, true);
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n', 'undo puts the files back');
    assert.notEqual(undone.lastEntryId, one.lastEntryId, 'and the conversation');

    await rewind({ sessionId, atEntryId: one.lastEntryId });
    await turn(sessionId, 'what is in the notes now');
    const sent = lastRequestText();
    assert.ok(sent.includes('write version one') && sent.includes('what is in the notes now'));
    assert.ok(!sent.includes('write version two') && !sent.includes('version-two'), 'the rewound turn is not sent');
    await assert.rejects(rewind({ sessionId, undo: true }), /no rewind to undo/, 'a message after the rewind makes it final');
  });

  it('untracked files, deletions, renames, binary files and touched ignored files come back; other ignored files are left alone', async () => {
    await start(true, { 'a.txt': 'alpha\n', 'b.txt': 'bee\n', '.gitignore': '*.log\n' });
    fs.writeFileSync(path.join(fx.root, 'c.bin'), Buffer.from([0, 1, 2, 255, 0, 10]));
    gitSync(fx.root, 'add', 'c.bin');
    gitSync(fx.root, 'commit', '-q', '-m', 'binary');
    write(fx.root, 'scratch.txt', 'untracked before\n');
    write(fx.root, 'keep.log', 'ignored, never touched\n');
    const zero = await turn(undefined, 'look around');
    const sessionId = zero.sessionId;
    await turn(sessionId, 'shuffle files',
      bash("rm a.txt && mv b.txt moved.txt && printf '\\000\\377\\001' > c.bin && echo changed > scratch.txt && echo new > brand-new.txt && mkdir -p deep/er && echo x > deep/er/f.txt && echo changed > keep.log"),
      writeFile('tool.log', 'written by a tool\n'));
    await turn(sessionId, 'touch the log again', writeFile('tool.log', 'rewritten\n'));

    const back = await rewind({ sessionId, atEntryId: zero.lastEntryId });
    assert.equal(back.done, true, JSON.stringify(back));
    assert.equal(read(fx.root, 'a.txt'), 'alpha\n');
    assert.equal(read(fx.root, 'b.txt'), 'bee\n');
    assert.ok(!fs.existsSync(path.join(fx.root, 'moved.txt')), 'the rename is undone');
    assert.deepEqual([...fs.readFileSync(path.join(fx.root, 'c.bin'))], [0, 1, 2, 255, 0, 10]);
    assert.equal(read(fx.root, 'scratch.txt'), 'untracked before\n');
    assert.ok(!fs.existsSync(path.join(fx.root, 'brand-new.txt')));
    assert.ok(!fs.existsSync(path.join(fx.root, 'deep')), 'emptied folders go too');
    assert.equal(read(fx.root, 'keep.log'), 'changed\n', 'an ignored file no tool touched is not recorded, so not rewound');
    assert.equal(read(fx.root, 'tool.log'), 'rewritten\n', 'nor deleted: it was not recorded at that point');
    assert.ok(back.leftAlone.includes('tool.log'));

    const undo = await rewind({ sessionId, undo: true });
    assert.equal(undo.done, true);
    assert.equal(read(fx.root, 'moved.txt'), 'bee\n');
    assert.ok(!fs.existsSync(path.join(fx.root, 'a.txt')));

    // Back to the turn that wrote tool.log first: the tool's file was recorded from then on.
    const entries = (await fx.h.transcript(sessionId)).entries;
    const shuffleEnd = entries.find(e => JSON.stringify(e.message).includes('done: shuffle files'))!.id;
    await rewind({ sessionId, atEntryId: shuffleEnd });
    assert.equal(read(fx.root, 'tool.log'), 'written by a tool\n');
  });

  it('asks before replacing a file that changed outside the agent between turns, and lists it', async () => {
    await start(true, { 'user.txt': 'user original\n' });
    const one = await turn(undefined, 'write one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    write(fx.root, 'user.txt', 'edited by the user between turns\n');
    await turn(sessionId, 'write two', writeFile('notes.txt', 'version-two\n'));

    const asked = await rewind({ sessionId, atEntryId: one.lastEntryId });
    assert.equal(asked.done, false);
    assert.equal(asked.needsConfirmation, true);
    assert.deepEqual(asked.outside, ['user.txt']);
    assert.deepEqual(asked.files.map(f => f.path).sort(), ['notes.txt', 'user.txt']);
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n', 'nothing changed before the answer');
    assert.equal(read(fx.root, 'user.txt'), 'edited by the user between turns\n');
    assert.notEqual((await fx.h.transcript(sessionId)).entries.at(-1)!.id, one.lastEntryId, 'nor the conversation');

    // An edit after the last turn counts as outside too.
    write(fx.root, 'notes.txt', 'the user finished it\n');
    const again = await rewind({ sessionId, atEntryId: one.lastEntryId });
    assert.deepEqual(again.outside.sort(), ['notes.txt', 'user.txt']);

    const confirmed = await rewind({ sessionId, atEntryId: one.lastEntryId, confirm: true });
    assert.equal(confirmed.done, true);
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
    assert.equal(read(fx.root, 'user.txt'), 'user original\n');
  });

  it('--code and --conversation rewind one side only', async () => {
    await start(true);
    const one = await turn(undefined, 'write one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    const two = await turn(sessionId, 'write two', writeFile('notes.txt', 'version-two\n'));
    const codeOnly = await rewind({ sessionId, atEntryId: one.lastEntryId, code: true });
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
    assert.equal(codeOnly.lastEntryId, two.lastEntryId, 'the conversation is kept');
    await rewind({ sessionId, undo: true });
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n');
    const talkOnly = await rewind({ sessionId, atEntryId: one.lastEntryId, conversation: true });
    assert.equal(talkOnly.lastEntryId, one.lastEntryId);
    assert.equal(read(fx.root, 'notes.txt'), 'version-two\n', 'the files are kept');
  });

  it('works the same in a folder that is not a git repository', async () => {
    await start(false, { 'plain.txt': 'plain\n' });
    const one = await turn(undefined, 'write one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    await turn(sessionId, 'write two', writeFile('notes.txt', 'version-two\n'), bash('rm plain.txt && echo more > extra.txt'));
    const back = await rewind({ sessionId, atEntryId: one.lastEntryId });
    assert.equal(back.done, true);
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
    assert.equal(read(fx.root, 'plain.txt'), 'plain\n');
    assert.ok(!fs.existsSync(path.join(fx.root, 'extra.txt')));
    assert.ok(!fs.existsSync(path.join(fx.root, '.git')), 'no repository is made in the folder');
  });

  it("a chat's next message after a rewind continues from it, though the Chat view still names the rewound turn", async () => {
    await start(true);
    const one = await turn(undefined, 'write version one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    const two = await turn(sessionId, 'write version two', writeFile('notes.txt', 'version-two\n'));
    await rewind({ sessionId, atEntryId: one.lastEntryId });
    fx.queue(say('continued'));
    const next = await fx.h.send('carry on', { sessionId, afterEntryId: two.lastEntryId });
    assert.equal(next.stopReason, 'end_turn');
    const sent = lastRequestText();
    assert.ok(sent.includes('write version one') && !sent.includes('write version two'), sent);
  });

  it('fork-agents rewind: lists files changed outside and changes nothing without --yes; --yes rewinds; --undo takes it back', async () => {
    await start(true);
    const one = await turn(undefined, 'write version one', writeFile('notes.txt', 'version-one\n'));
    const sessionId = one.sessionId;
    await turn(sessionId, 'write version two', writeFile('notes.txt', 'version-two\n'));
    write(fx.root, 'notes.txt', 'finished by hand\n');
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => fx.h.fake.url, store: () => fx.h.storeDir });
    const asked = await cli('rewind', '--session', sessionId, '--at', one.lastEntryId!);
    assert.equal(asked.code, 1, asked.stderr);
    assert.match(asked.stderr, /changed outside the agent[\s\S]*  notes\.txt\n[\s\S]*--yes/);
    assert.equal(read(fx.root, 'notes.txt'), 'finished by hand\n');
    const done = await cli('rewind', '--session', sessionId, '--at', one.lastEntryId!, '--yes');
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^restored notes\.txt$/m);
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
    const undone = await cli('rewind', '--session', sessionId, '--undo', '--yes', '--json');
    assert.equal(undone.code, 0, undone.stderr);
    assert.equal(lastJson(undone).type, 'rewind-undone');
    assert.equal(read(fx.root, 'notes.txt'), 'finished by hand\n', 'the undo puts back what the rewind replaced');
    const both = await cli('rewind', '--session', sessionId, '--at', one.lastEntryId!, '--code', '--conversation');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /at most one of --code or --conversation/);
  });

  it('keeps files over 32 MiB by reference: a rewind leaves them as they are and says so', async () => {
    await start(true);
    const zero = await turn(undefined, 'look around');
    const sessionId = zero.sessionId;
    // Sparse: 40 MiB by size, almost nothing on disk.
    await turn(sessionId, 'make a big file', bash('truncate -s 40M big.bin && echo small > small.txt'));
    const back = await rewind({ sessionId, atEntryId: zero.lastEntryId });
    assert.equal(back.done, true);
    assert.deepEqual(back.files, [{ path: 'small.txt', status: 'deleted' }]);
    assert.deepEqual(back.leftAlone, ['big.bin']);
    assert.equal(fs.statSync(path.join(fx.root, 'big.bin')).size, 40 * 1024 * 1024);
    assert.ok(!fs.existsSync(path.join(fx.root, 'small.txt')));
    const records = fs.readFileSync(path.join(fx.h.storeDir, 'sessions', `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line));
    const ends = records.filter(r => r.type === 'checkpoint' && r.checkpoint.kind === 'turn-end');
    assert.deepEqual(ends.at(-1).checkpoint.large.map((ref: { path: string; size: number }) => [ref.path, ref.size]), [['big.bin', 40 * 1024 * 1024]]);
  });

  it("survives the user's git gc after a rewrite: a blob only an old checkpoint still needs is kept, the rewind restores it", async () => {
    await start(true, { 'notes.txt': 'as first committed\n' });
    const blob = gitSync(fx.root, 'rev-parse', 'HEAD:notes.txt').trim();
    const one = await turn(undefined, 'look around');
    const sessionId = one.sessionId;
    await turn(sessionId, 'write two', writeFile('notes.txt', 'version-two\n'));
    // History rewritten so no ref, reflog or index names the old blob any more; then the user's gc.
    write(fx.root, 'notes.txt', 'amended\n');
    gitSync(fx.root, 'commit', '-q', '-a', '--amend', '-m', 'rewritten');
    gitSync(fx.root, 'reflog', 'expire', '--expire=now', '--all');
    gitSync(fx.root, 'gc', '-q', '--prune=now');
    assert.throws(() => gitSync(fx.root, 'cat-file', '-e', blob), /Command failed/, 'the user\'s repository no longer has the blob');
    write(fx.root, 'notes.txt', 'version-two\n');

    const back = await rewind({ sessionId, atEntryId: one.lastEntryId, confirm: true });
    assert.equal(back.done, true, JSON.stringify(back));
    assert.equal(read(fx.root, 'notes.txt'), 'as first committed\n');
    await rewind({ sessionId, undo: true, confirm: true });
    const fork = await sendRequest(fx.h.client.endpoint, forkStart, { sessionId, atEntryId: one.lastEntryId, directive: 'check the notes' });
    assert.equal(read(fork.worktree!.path, 'notes.txt'), 'as first committed\n', 'Fork from here at that message has it too');
    assert.equal((await sendRequest(fx.h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    await start(true);
    const one = await turn(undefined, 'write one', writeFile('notes.txt', 'version-one\n'));
    await assert.rejects(rewind({ sessionId: one.sessionId, atEntryId: 'e-nope' }), /not in session/);
    await assert.rejects(rewind({ sessionId: one.sessionId }), /needs atEntryId/);
    await assert.rejects(rewind({ sessionId: one.sessionId, undo: true }), /no rewind to undo/);
    await assert.rejects(rewind({ sessionId: one.sessionId, atEntryId: one.lastEntryId, code: false, conversation: false }), /Nothing to rewind/);
    assert.equal(read(fx.root, 'notes.txt'), 'version-one\n');
  });
});
