// File writes must not reach git's own configuration, and the runtime's own git must not run
// what a repository (or a fork) put there. Real git payloads (core.fsmonitor, hooks, a redirected gitdir)
// that touch a marker file when run; each test first shows the payload is live with a plain git call.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkReview, forkStart, forkWait } from '../../src/common/protocol/forks';
import { gitSync, initRepo, scriptForks, toolRuns } from './gitRepo';
import { useSharedHarness } from './harness';
import { call, say } from './script';

/** A shell payload that records that it ran, for core.fsmonitor and hooks. */
function payload(marker: string): string {
  return `sh -c 'echo ran >> ${marker}; exit 1'`;
}

describe('runtime: git payloads a repository plants never run (docs/design.md §6)', function () {
  this.timeout(60_000);
  const h = useSharedHarness({ config: { approvalMode: 'auto-edit' } });
  let repo: string;
  let marker: string;

  beforeEach(async () => {
    repo = fs.realpathSync(h.root);
    marker = path.join(path.dirname(repo), 'payload-ran');
    initRepo(repo, { 'a.txt': 'a\n' });
  });

  it('in auto-edit, write_file .git/config asks as a command does; denied, nothing is written', async () => {
    h.answerApproval = () => ({ approved: false });
    const before = fs.readFileSync(path.join(repo, '.git/config'), 'utf8');
    const evil = `${before}[core]\n\tfsmonitor = ${payload(marker)}\n`;
    h.fake.enqueue(
      call(['write_file', { path: '.git/config', content: evil }], ['edit_file', { path: '.GIT/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = x' }],
        ['write_file', { path: 'src/../.git/hooks/pre-commit', content: '#!/bin/sh\n' }], ['write_file', { path: 'ok.txt', content: 'fine\n' }]),
      say('done'),
    );
    const result = await h.send('configure git');
    assert.deepEqual(h.approvals.map(a => [a.toolName, a.category]), [['write_file', 'exec'], ['edit_file', 'exec'], ['write_file', 'exec']],
      'the three .git writes asked at exec level; the plain write did not ask in auto-edit');
    assert.match(h.approvals[0].description, /inside a \.git folder or file/);
    const runs = toolRuns((await h.transcript(result.sessionId)).entries);
    assert.deepEqual(runs.map(r => r.isError), [true, true, true, false]);
    assert.equal(fs.readFileSync(path.join(repo, '.git/config'), 'utf8'), before);
    assert.equal(fs.existsSync(path.join(repo, '.git/hooks/pre-commit')), false);
    assert.equal(fs.readFileSync(path.join(repo, 'ok.txt'), 'utf8'), 'fine\n');
  });

  it('a symlink leading into .git counts as .git', async () => {
    fs.symlinkSync('.git', path.join(repo, 'innocent'));
    h.answerApproval = () => ({ approved: false });
    h.fake.enqueue(call(['write_file', { path: 'innocent/config', content: '[core]\n' }]), say('done'));
    await h.send('write');
    assert.deepEqual(h.approvals.map(a => a.category), ['exec']);
    assert.notEqual(fs.readFileSync(path.join(repo, '.git/config'), 'utf8'), '[core]\n');
  });

  it('the runtime\'s own git (fork worktree add, snapshot) runs no fsmonitor or hook the repository configured', async () => {
    // The repository's config as a user who approved the write (or a cloned repo's hooks) would leave it.
    gitSync(repo, 'config', 'core.fsmonitor', payload(marker));
    fs.writeFileSync(path.join(repo, '.git/hooks/post-checkout'), `#!/bin/sh\necho hook >> ${marker}\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(repo, 'dirty.txt'), 'uncommitted\n'); // makes the fork snapshot the tree (git add -A)
    execFileSync('git', ['status', '--porcelain'], { cwd: repo, stdio: 'ignore' });
    assert.ok(fs.existsSync(marker), 'control: plain git runs the fsmonitor payload');
    fs.rmSync(marker);

    const scripts = scriptForks(h);
    scripts.set('look', [say('Scope: looked.\nResult: fine.')]);
    const sessionId = (await h.send('hello')).sessionId;
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'look around' });
    assert.equal(fork.isolation, 'worktree');
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    await sendRequest(h.client.endpoint, forkReview, { forkId: fork.id });
    assert.equal(fs.existsSync(marker), false, 'neither fsmonitor nor post-checkout ran');
  });

  it('a worktree fork that points its .git file at a folder it wrote does not make review run that folder\'s config', async () => {
    const scripts = scriptForks(h);
    scripts.set('work', [say('Scope: worked.\nResult: done.')]);
    const sessionId = (await h.send('hello')).sessionId;
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'work here' });
    await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id });
    const worktree = fork.worktree!.path;
    // What the fork could write inside its own root: a whole git dir with a payload, and `.git` pointing at it.
    const evil = path.join(worktree, 'evil');
    fs.cpSync(path.join(repo, '.git'), evil, { recursive: true });
    execFileSync('git', ['config', '-f', path.join(evil, 'config'), 'core.fsmonitor', payload(marker)]);
    fs.writeFileSync(path.join(worktree, '.git'), 'gitdir: evil\n');
    fs.writeFileSync(path.join(worktree, 'change.txt'), 'fork change\n');
    execFileSync('git', ['status', '--porcelain'], { cwd: worktree, stdio: 'ignore' });
    assert.ok(fs.existsSync(marker), 'control: plain git follows the rewritten .git file and runs the payload');
    fs.rmSync(marker);

    const review = await sendRequest(h.client.endpoint, forkReview, { forkId: fork.id });
    assert.equal(fs.existsSync(marker), false, 'review used the recorded admin folder');
    assert.ok(review.files.some(f => f.path === 'change.txt'), 'and still saw the fork\'s change');
  });
});
