// The git side of worktree forks on real temp repositories, without the runtime: the edge cases of
// creating, applying, discarding and pruning that the end-to-end tests do not reach.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyForkToMain } from '../../src/runtime/git/applyFork';
import { forkDiff, parseRawDiff } from '../../src/runtime/git/forkDiff';
import { pruneStaleWorktrees } from '../../src/runtime/git/prune';
import { createForkWorktree } from '../../src/runtime/git/createWorktree';
import { discardForkWorktree, isForkBranch, shortForkId, slugify } from '../../src/runtime/git/worktree';
import { forkBranches, gitSync, initRepo, read, worktreePaths, write } from './gitRepo';

function tempRepo(files: Record<string, string> | null): string {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-git-')));
  const repo = path.join(base, 'repo');
  fs.mkdirSync(repo);
  if (files) initRepo(repo, files);
  return repo;
}

const ID = 'f-0123abcd-aaaa-bbbb-cccc-000000000000';

describe('git: fork worktrees', function () {
  this.timeout(30_000);

  it('names branches safely', () => {
    assert.equal(slugify('Fix the --force flag; rm -rf /!'), 'fix-the-force-flag-rm-rf');
    assert.equal(slugify('Ünïcödé ✓ naïve'), 'unicode-naive');
    assert.equal(slugify('../..'), 'fork');
    assert.equal(shortForkId(ID), '0123abcd');
    assert.ok(isForkBranch('fork/a-1') && !isForkBranch('main') && !isForkBranch('fork/../main') && !isForkBranch('fork/-x'));
  });

  it('parses raw diff output with spaces, newlines and dashes in paths', () => {
    const z = '0'.repeat(40);
    const raw = `:000000 100644 ${z} ${'a'.repeat(40)} A\0-rf dir/ü x.txt\0:100644 000000 ${'b'.repeat(40)} ${z} D\0line\nbreak\0`;
    assert.deepEqual(parseRawDiff(raw).map(c => [c.status, c.path]), [['added', '-rf dir/ü x.txt'], ['deleted', 'line\nbreak']]);
  });

  it('forks a repository without commits and applies odd file names back', async () => {
    const repo = tempRepo(null);
    gitSync(repo, 'init', '-q');
    write(repo, 'first.txt', 'no commit yet\n');
    const wt = await createForkWorktree({ repoRoot: repo, slug: 'fresh', id: ID });
    assert.equal(wt.parentHead, undefined);
    assert.equal(read(wt.path, 'first.txt'), 'no commit yet\n');
    write(wt.path, '-rf dir/ü x.txt', 'odd\n');
    const diff = await forkDiff(wt.path, wt.base);
    assert.deepEqual(diff.files, [{ path: '-rf dir/ü x.txt', status: 'added' }]);
    const outcome = await applyForkToMain({ repoRoot: repo, worktree: wt.path, base: wt.base });
    assert.deepEqual(outcome.applied, ['-rf dir/ü x.txt']);
    assert.equal(read(repo, '-rf dir/ü x.txt'), 'odd\n');
    assert.throws(() => gitSync(repo, 'rev-parse', '--verify', '-q', 'HEAD'), 'the main HEAD is untouched (still unborn)');
  });

  it('reports delete/modify, binary and escaping conflicts, and takes symlinks and identical additions', async () => {
    const repo = tempRepo({ 'doc.txt': 'doc\n', 'keep.txt': 'keep\n', 'img.bin': 'a\0b', 'sub/x.txt': 'x\n' });
    const wt = await createForkWorktree({ repoRoot: repo, slug: 'edges', id: ID });
    fs.rmSync(path.join(wt.path, 'doc.txt'));
    write(wt.path, 'keep.txt', 'fork keep\n');
    write(wt.path, 'img.bin', 'a\0fork');
    write(wt.path, 'sub/x.txt', 'fork x\n');
    write(wt.path, 'same.txt', 'same\n');
    fs.symlinkSync('keep.txt', path.join(wt.path, 'link'));
    // Meanwhile in the main tree:
    write(repo, 'doc.txt', 'doc edited in main\n');
    fs.rmSync(path.join(repo, 'keep.txt'));
    write(repo, 'img.bin', 'a\0main');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-outside-'));
    fs.rmSync(path.join(repo, 'sub'), { recursive: true });
    fs.symlinkSync(outside, path.join(repo, 'sub'));
    write(repo, 'same.txt', 'same\n');

    const refused = await applyForkToMain({ repoRoot: repo, worktree: wt.path, base: wt.base });
    assert.deepEqual(Object.fromEntries(refused.conflictDetails.map(c => [c.path, c.reason])), {
      'doc.txt': 'changed in the main working tree, deleted in the fork',
      'img.bin': 'binary file changed on both sides',
      'keep.txt': 'deleted in the main working tree, changed in the fork',
      'sub/x.txt': 'its folder leads outside the main working tree through a symbolic link',
    });
    assert.deepEqual(refused.applied, []);
    assert.ok(!fs.existsSync(path.join(repo, 'link')));

    const marked = await applyForkToMain({ repoRoot: repo, worktree: wt.path, base: wt.base, onConflict: 'markers' });
    assert.deepEqual(marked.applied, ['link']);
    assert.deepEqual(marked.unchanged, ['same.txt']);
    assert.deepEqual(marked.withMarkers, [], 'no text conflict here: every conflict keeps the main file');
    assert.equal(fs.readlinkSync(path.join(repo, 'link')), 'keep.txt');
    assert.equal(read(repo, 'doc.txt'), 'doc edited in main\n');
    assert.equal(fs.readFileSync(path.join(repo, 'img.bin'), 'latin1'), 'a\0main');
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written through the symlinked folder');
  });

  it('discard refuses what is not a fork worktree; prune spares other stores and live forks', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    await assert.rejects(discardForkWorktree({ repoRoot: repo, path: repo, branch: 'main' }), /not a fork branch/);
    await assert.rejects(discardForkWorktree({ repoRoot: repo, path: repo, branch: 'fork/x-1' }), /not a linked worktree/);
    assert.ok(fs.existsSync(path.join(repo, 'a.txt')));

    const mine = await createForkWorktree({ repoRoot: repo, slug: 'mine', id: 'f-11111111', owner: '/store/a' });
    const theirs = await createForkWorktree({ repoRoot: repo, slug: 'theirs', id: 'f-22222222', owner: '/store/b' });
    const live = await createForkWorktree({ repoRoot: repo, slug: 'live', id: 'f-33333333', owner: '/store/a' });
    const result = await pruneStaleWorktrees(repo, new Set(['f-33333333']), '/store/a');
    assert.deepEqual(result.pruned.map(p => p.path), [mine.path]);
    assert.deepEqual(worktreePaths(repo).sort(), [repo, theirs.path, live.path].sort());
    assert.deepEqual(forkBranches(repo).sort(), [theirs.branch, live.branch].sort());
  });

  it('refuses a worktree folder inside the repository without creating it', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    await assert.rejects(createForkWorktree({ repoRoot: repo, worktreeRoot: 'trees', slug: 'x', id: ID }), /inside the repository/);
    assert.ok(!fs.existsSync(path.join(repo, 'trees')));
    assert.deepEqual(forkBranches(repo), []);
  });
});
