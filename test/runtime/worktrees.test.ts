// Worktree isolation end to end (docs/design.md §4.8): the runtime process, the fake model server scripting the
// fork's tool calls, and real git repositories in temp folders.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkApply, forkBaseFile, forkDiscard, forkKeep, forkList, forkReview } from '../../src/common/protocol/forks';
import type { ForkSummary } from '../../src/common/forks';
import { isForkRequest, forkBranches, gitSync, initRepo, read, toolRuns, worktreePaths, write } from './gitRepo';
import { call } from './script';
import { useWorktreeChat } from './worktreeChat';

describe('runtime: worktree forks', function () {
  this.timeout(60_000);
  const chat = useWorktreeChat(repo => {
    initRepo(repo, {
      'a.txt': 'line1\nline2\nline3\n', 'b.txt': 'bee\n', 'c.txt': 'sea\n', 'gone.txt': 'to be deleted\n',
      '.gitignore': '*.log\n', 'bin/run.sh': '#!/bin/sh\necho hi\n',
    });
    fs.chmodSync(path.join(repo, 'bin/run.sh'), 0o755);
    gitSync(repo, 'add', 'bin/run.sh');
    gitSync(repo, 'commit', '-q', '-m', 'exec bit');
    // The parent's dirty state: modified, staged new, staged rename, deleted, untracked, ignored.
    write(repo, 'a.txt', 'line1\nline2 parent-edit\nline3\n');
    write(repo, 'staged.txt', 'staged content\n');
    gitSync(repo, 'add', 'staged.txt');
    gitSync(repo, 'mv', 'b.txt', 'renamed.txt');
    fs.rmSync(path.join(repo, 'gone.txt'));
    write(repo, 'untracked.txt', 'untracked content\n');
    write(repo, 'debug.log', 'ignored content\n');
  });
  const { start, wait } = chat;
  const runsOf = async (forkId: string) => toolRuns((await chat.h.transcript(forkId)).entries);

  it('starts from the parent\'s current state; its edits stay in its worktree; review lists them; apply brings them over', async () => {
    chat.scripts.set('edit', [
      call(['read_file', { path: 'a.txt' }], ['read_file', { path: 'staged.txt' }], ['read_file', { path: 'untracked.txt' }],
        ['read_file', { path: 'renamed.txt' }], ['read_file', { path: 'debug.log' }], ['read_file', { path: 'gone.txt' }], ['read_file', { path: 'b.txt' }]),
      call(['edit_file', { path: 'a.txt', old_string: 'line3', new_string: 'line3 fork-edit' }], ['write_file', { path: 'new/fork.txt', content: 'from the fork\n' }],
        ['bash', { command: 'rm c.txt && chmod -x bin/run.sh && pwd' }]),
    ]);
    const fork = await start('edit things');
    assert.equal(fork.isolation, 'worktree', 'the default inside a git repository');
    const wt = fork.worktree!;
    assert.match(wt.branch, /^fork\/edit-things-[0-9a-f]{8}$/);
    assert.equal(fork.root, wt.path);
    assert.equal(wt.path, path.join(path.dirname(chat.repo), '.fork-agents-worktrees', path.basename(chat.repo), wt.branch.slice('fork/'.length)));
    assert.equal(wt.repoRoot, chat.repo);
    assert.equal(wt.carried, 6, 'a.txt, staged.txt, b.txt→renamed.txt, gone.txt, untracked.txt');
    assert.equal((await wait(fork.id)).state, 'completed');

    const [reads, writes] = [(await runsOf(fork.id)).slice(0, 7), (await runsOf(fork.id)).slice(7)];
    assert.deepEqual(reads.map(r => r.isError), [false, false, false, false, true, true, true]);
    assert.match(reads[0].content, /line2 parent-edit/);
    assert.match(reads[1].content, /staged content/);
    assert.match(reads[2].content, /untracked content/);
    assert.match(reads[3].content, /bee/);
    assert.ok(writes.every(r => !r.isError), JSON.stringify(writes));
    assert.ok(writes[2].content.split('\n').includes(wt.path), `bash runs in the worktree: ${writes[2].content}`);
    const first = chat.h.fake.requests.find(isForkRequest)!;
    const directive = JSON.stringify(first.body.messages.at(-1));
    assert.ok(directive.includes('Worktree notice') && directive.includes(`parent's root is ${chat.repo}; yours is ${wt.path}`));
    assert.ok(!fs.existsSync(path.join(wt.path, 'debug.log')), 'ignored files are not carried over');

    // The main tree is untouched, its index too.
    const stagedBefore = gitSync(chat.repo, 'diff', '--cached', '--name-status');
    assert.equal(read(chat.repo, 'a.txt'), 'line1\nline2 parent-edit\nline3\n');
    assert.ok(!fs.existsSync(path.join(chat.repo, 'new')) && fs.existsSync(path.join(chat.repo, 'c.txt')));

    const review = await sendRequest(chat.h.client.endpoint, forkReview, { forkId: fork.id });
    assert.deepEqual(review.files, [
      { path: 'a.txt', status: 'modified' }, { path: 'bin/run.sh', status: 'modified' },
      { path: 'c.txt', status: 'deleted' }, { path: 'new/fork.txt', status: 'added' },
    ]);
    assert.match(review.patch, /^\+line3 fork-edit$/m);
    assert.match(review.patch, /^-line3$/m);
    assert.ok(!review.patch.includes('parent-edit\n+') && !review.patch.includes('staged.txt'), 'carried-over state is part of the base');
    assert.deepEqual([review.base, review.branch, review.worktree, review.repoRoot], [wt.base, wt.branch, wt.path, chat.repo]);
    const left = await sendRequest(chat.h.client.endpoint, forkBaseFile, { forkId: fork.id, path: 'a.txt' });
    assert.equal(left.content, 'line1\nline2 parent-edit\nline3\n');
    assert.deepEqual(await sendRequest(chat.h.client.endpoint, forkBaseFile, { forkId: fork.id, path: 'new/fork.txt' }), { exists: false });

    const applied = await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id });
    assert.deepEqual(applied.conflicts, []);
    assert.deepEqual(applied.applied.sort(), ['a.txt', 'bin/run.sh', 'c.txt', 'new/fork.txt']);
    assert.equal(read(chat.repo, 'a.txt'), 'line1\nline2 parent-edit\nline3 fork-edit\n');
    assert.equal(read(chat.repo, 'new/fork.txt'), 'from the fork\n');
    assert.ok(!fs.existsSync(path.join(chat.repo, 'c.txt')));
    assert.equal(fs.statSync(path.join(chat.repo, 'bin/run.sh')).mode & 0o111, 0);
    assert.equal(gitSync(chat.repo, 'diff', '--cached', '--name-status'), stagedBefore, 'the main index is not touched');
    assert.ok(gitSync(chat.repo, 'status', '--porcelain').includes('?? new/'), 'new files arrive uncommitted');

    const again = await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id });
    assert.deepEqual(again.applied, []);
    assert.match(again.message, /Already applied/);
    const listed = (await sendRequest(chat.h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.ok(listed.worktree?.appliedAt);
  });

  it('a conflicting apply is refused whole and changes nothing; with markers it marks the conflict', async () => {
    chat.scripts.set('conflict', [call(['edit_file', { path: 'a.txt', old_string: 'line1', new_string: 'line1 from the fork' }], ['write_file', { path: 'other.txt', content: 'clean\n' }])]);
    const fork = await start('conflict ahead');
    await wait(fork.id);
    write(chat.repo, 'a.txt', 'line1 from main\nline2 parent-edit\nline3\n');
    const forkSide = read(fork.worktree!.path, 'a.txt');

    const refused = await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id });
    assert.deepEqual(refused.conflicts, ['a.txt']);
    assert.deepEqual(refused.applied, []);
    assert.equal(refused.conflictDetails[0].reason, 'both sides changed the same lines');
    assert.match(refused.message, /Not applied: 1 file conflict[^]*Nothing was written/);
    assert.equal(read(chat.repo, 'a.txt'), 'line1 from main\nline2 parent-edit\nline3\n', 'main side intact');
    assert.ok(!fs.existsSync(path.join(chat.repo, 'other.txt')), 'not even the clean file is written');
    assert.equal(read(fork.worktree!.path, 'a.txt'), forkSide, 'fork side intact');
    assert.equal((await sendRequest(chat.h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!.worktree?.appliedAt, undefined);

    const marked = await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id, onConflict: 'markers' });
    assert.deepEqual([marked.applied, marked.withMarkers], [['other.txt'], ['a.txt']]);
    assert.equal(read(chat.repo, 'a.txt'), '<<<<<<< main\nline1 from main\n=======\nline1 from the fork\n>>>>>>> fork\nline2 parent-edit\nline3\n');
    assert.equal(read(chat.repo, 'other.txt'), 'clean\n');
  });

  it('merges non-overlapping edits made in the main tree meanwhile', async () => {
    chat.scripts.set('merge', [call(['edit_file', { path: 'a.txt', old_string: 'line3', new_string: 'line3 fork' }])]);
    const fork = await start('merge me');
    await wait(fork.id);
    write(chat.repo, 'a.txt', 'line1 main\nline2 parent-edit\nline3\n');
    const result = await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id });
    assert.deepEqual([result.applied, result.conflicts], [['a.txt'], []]);
    assert.equal(read(chat.repo, 'a.txt'), 'line1 main\nline2 parent-edit\nline3 fork\n');
  });

  it('discard stops a running fork and leaves no worktree, branch or folder', async () => {
    chat.scripts.set('hang', [{ fault: 'hang' } as never]);
    const hung = new Promise<void>(resolve => chat.h.fake.onRequest(r => isForkRequest(r) && resolve()));
    const fork = await start('hang around');
    await hung;
    assert.equal(worktreePaths(chat.repo).length, 2);
    await sendRequest(chat.h.client.endpoint, forkDiscard, { forkId: fork.id });
    assert.deepEqual(worktreePaths(chat.repo), [chat.repo]);
    assert.deepEqual(forkBranches(chat.repo), []);
    assert.ok(!fs.existsSync(fork.worktree!.path));
    assert.ok(!fs.existsSync(path.join(path.dirname(chat.repo), '.fork-agents-worktrees')), 'empty parent folders go too');
    const after: ForkSummary = (await sendRequest(chat.h.client.endpoint, forkList, {})).forks.find(f => f.id === fork.id)!;
    assert.equal(after.state, 'cancelled');
    assert.equal(after.worktree?.discarded, true);
    await assert.rejects(sendRequest(chat.h.client.endpoint, forkReview, { forkId: fork.id }), /discarded/);
    assert.deepEqual(await sendRequest(chat.h.client.endpoint, forkDiscard, { forkId: fork.id }), {}, 'discarding twice is fine');
  });

  it('keep commits the fork\'s work to its branch and removes nothing', async () => {
    chat.scripts.set('keeper', [call(['write_file', { path: 'kept.txt', content: 'keep me\n' }])]);
    const fork = await start('keeper job');
    await wait(fork.id);
    const kept = await sendRequest(chat.h.client.endpoint, forkKeep, { forkId: fork.id });
    assert.equal(kept.branch, fork.worktree!.branch);
    assert.equal(gitSync(chat.repo, 'show', `${kept.branch}:kept.txt`), 'keep me\n');
    assert.equal(gitSync(chat.repo, 'rev-parse', `${kept.branch}^`).trim(), fork.worktree!.base);
    assert.equal(gitSync(fork.worktree!.path, 'status', '--porcelain'), '');
    assert.ok(fs.existsSync(fork.worktree!.path));
    const review = await sendRequest(chat.h.client.endpoint, forkReview, { forkId: fork.id });
    assert.deepEqual(review.files, [{ path: 'kept.txt', status: 'added' }], 'review still measures from the base');
  });

  it('the fork\'s tools refuse paths that escape its worktree: ../, absolute into the main tree, symlinks', async () => {
    const escape = path.join(chat.repo, 'a.txt');
    chat.scripts.set('escape', [
      call(['bash', { command: `ln -s ${JSON.stringify(chat.repo)} link` }]),
      call(['write_file', { path: '../escaped.txt', content: 'x' }], ['write_file', { path: escape, content: 'overwritten' }],
        ['edit_file', { path: 'link/a.txt', old_string: 'line1', new_string: 'hacked' }], ['read_file', { path: 'link/a.txt' }],
        ['write_file', { path: 'link/new.txt', content: 'x' }], ['list_files', { path: 'link' }]),
    ]);
    const fork = await start('escape attempt');
    await wait(fork.id);
    const runs = (await runsOf(fork.id)).slice(1);
    assert.equal(runs.length, 6);
    for (const run of runs) {
      assert.equal(run.isError, true, `${run.name} ${JSON.stringify(run.input)}: ${run.content}`);
      assert.match(run.content, /outside the session root/);
    }
    assert.equal(read(chat.repo, 'a.txt'), 'line1\nline2 parent-edit\nline3\n');
    assert.ok(!fs.existsSync(path.join(chat.repo, 'new.txt')) && !fs.existsSync(path.join(path.dirname(fork.worktree!.path), 'escaped.txt')));
  });

  it('shared isolation on request works in place; worktree refusals name the fix', async () => {
    const shared = await start('in place', { isolation: 'shared' });
    assert.equal(shared.isolation, 'shared');
    assert.equal(shared.root, chat.repo);
    assert.equal(shared.worktree, undefined);
    await wait(shared.id);
    await assert.rejects(sendRequest(chat.h.client.endpoint, forkReview, { forkId: shared.id }), /isolation "shared"/);
    await chat.h.configure({ worktreeRoot: path.join(chat.repo, 'inside') });
    await assert.rejects(start('bad root'), /inside the repository/);
    assert.deepEqual(worktreePaths(chat.repo), [chat.repo]);
  });
});
