// fork-agents review / apply / keep / discard as a user runs them: real CLI processes, the runtime, the
// fake model server and a real git repository.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lastJson } from './cliRunner';
import { useCliStore } from './cliStore';
import { forkBranches, initRepo, isForkRequest, read, worktreePaths } from './gitRepo';
import { call, say } from './script';

describe('cli: worktree forks', function () {
  this.timeout(60_000);
  const cliStore = useCliStore({ apiKey: 'k-cli', prefix: 'fa-wtcli-' });
  const { cli } = cliStore;

  beforeEach(() => {
    cliStore.fake.setResponder(r => {
      if (!isForkRequest(r)) return say('parent answer');
      const last = r.body.messages.at(-1).content;
      return last[0].type === 'tool_result' ? say('Scope: cli.\nResult: wrote cli.txt.') : call(['write_file', { path: 'cli.txt', content: 'from the cli fork\n' }]);
    });
  });

  it('forks into a worktree by default, reviews, applies and discards', async () => {
    const repo = cliStore.work;
    initRepo(repo, { 'README.md': '# repo\n' });
    const chat = await cli('chat', '--cwd', repo, '--json', 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);
    const worktreeRoot = path.join(cliStore.base, 'trees');
    const fork = await cli('fork', '--cwd', repo, '--session', sessionId, '--worktree-root', worktreeRoot, '--approval', 'auto', '--wait', '--json', 'write a file');
    assert.equal(fork.code, 0, fork.stderr);
    const { forkId } = lastJson(fork);

    const review = await cli('review', '--fork', forkId, '--json');
    assert.equal(review.code, 0, review.stderr);
    const reviewed = lastJson(review);
    assert.deepEqual(reviewed.files, [{ path: 'cli.txt', status: 'added' }]);
    assert.equal(path.dirname(reviewed.worktree), worktreeRoot, '--worktree-root is honoured');
    assert.match(reviewed.patch, /^\+from the cli fork$/m);
    const plain = await cli('review', '--fork', forkId);
    assert.match(plain.stderr, /^A cli\.txt$/m);
    assert.match(plain.stdout, /^diff --git a\/cli\.txt b\/cli\.txt$/m);

    const apply = await cli('apply', '--fork', forkId, '--json');
    assert.equal(apply.code, 0, apply.stderr);
    assert.deepEqual(lastJson(apply).applied, ['cli.txt']);
    assert.equal(read(repo, 'cli.txt'), 'from the cli fork\n');

    const discard = await cli('discard', '--fork', forkId);
    assert.equal(discard.code, 0, discard.stderr);
    assert.deepEqual(worktreePaths(repo), [repo]);
    assert.deepEqual(forkBranches(repo), []);
    assert.ok(!fs.existsSync(reviewed.worktree));
  });

  it('exits 2 with the reason for worktree isolation outside git and for reviewing a shared fork', async () => {
    const plainDir = path.join(cliStore.base, 'plain');
    fs.mkdirSync(plainDir);
    const { sessionId } = lastJson(await cli('chat', '--cwd', plainDir, '--json', 'hello'));
    const refused = await cli('fork', '--cwd', plainDir, '--session', sessionId, '--isolation', 'worktree', 'x');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^fork-agents: Worktree isolation needs a git repository; .* Use isolation "shared"/);
    const shared = await cli('fork', '--cwd', plainDir, '--session', sessionId, '--approval', 'auto', '--wait', '--json', 'x');
    assert.equal(shared.code, 0, shared.stderr);
    const review = await cli('review', '--fork', lastJson(shared).forkId);
    assert.equal(review.code, 2);
    assert.match(review.stderr, /isolation "shared"/);
    // apply without --fork: test/unit/cli.args.test.ts.
  });
});
