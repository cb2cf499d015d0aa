// The index-free checkpoint (checkpoint/treeTurn.ts) against an oracle that shares none of its code:
// real `git add -A` into a fresh index of a repository of its own, then `git write-tree`, over the same
// work tree. Tree ids are content hashes, so equal ids mean the same modes, names, order and blobs.
// Each case is one turn of the kind the index-free path could get wrong; each must be written without
// the index (or, where said, through it) and every object it names must be in the shadow.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { commitGitignore, gitSync as git, tempRepo } from '../runtime/gitRepo';

describe('checkpoints: index-free turns against git write-tree over a real index', function () {
  this.timeout(60_000);
  let base: string;
  let repo: string;
  let oracle: string;
  let shadow: ShadowRepo;
  const extra: ShadowRepo[] = [];

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-index-free-', {
      'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'src/deep/er/c.txt': 'c\n', 'x': 'a file, later a folder\n',
      'dir/one.txt': '1\n', 'dir/two.txt': '2\n', 'tool.sh': 'echo hi\n', 'a.b': 'sorts before the folder a\n', 'a/in.txt': 'in a\n',
    }));
    commitGitignore(repo, 'build/\n*.log\n');
    oracle = path.join(base, 'oracle.git');
    git(base, 'init', '-q', '--bare', oracle);
    git(base, `--git-dir=${oracle}`, 'config', 'core.autocrlf', 'false');
    shadow = await shadowFor(path.join(base, 'store'), repo);
    await takeCheckpoint(shadow);
  });
  afterEach(async () => {
    for (const s of [shadow, ...extra.splice(0)]) {
      s.watcher?.close();
      s.treeTurn?.close();
      await serialized(s, async () => undefined);
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** What git records for the work tree now: every file `add -A` takes, in a fresh index. */
  const expected = (): string => {
    const index = path.join(base, `oracle-index-${Date.now()}-${Math.random()}`);
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const run = (...args: string[]) => execFileSync('git', [`--git-dir=${oracle}`, `--work-tree=${repo}`, ...args], { cwd: repo, env, encoding: 'utf8' });
    run('add', '-A');
    const tree = run('write-tree').trim();
    fs.rmSync(index, { force: true });
    return tree;
  };
  /** Every object of `tree` is in the shadow (its own objects, or the user's it reads as alternates). */
  const complete = (tree: string) => {
    const listing = git(repo, `--git-dir=${shadow.gitDir}`, 'ls-tree', '-r', '-t', tree);
    const ids = listing.split('\n').filter(Boolean).map(line => line.split(/\s+/)[2]);
    const env = { ...process.env, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(repo, '.git', 'objects') };
    const answer = execFileSync('git', [`--git-dir=${shadow.gitDir}`, 'cat-file', '--batch-check'], { input: ids.join('\n') + '\n', env, encoding: 'utf8' });
    assert.ok(!answer.includes('missing'), `objects missing: ${answer.split('\n').filter(l => l.includes('missing')).join(', ')}`);
  };
  const turn = async (what: string, way: 'index-free' | 'index' = 'index-free', on: ShadowRepo = shadow) => {
    const { tree } = await takeCheckpoint(on);
    assert.equal(on.lastWay, way, `${what}: written ${way}`);
    assert.equal(tree, expected(), `${what}: the tree git writes`);
    complete(tree);
    return tree;
  };
  const file = (rel: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), content);
  };

  it('exec bits, set and cleared, on tracked and new files', async () => {
    fs.chmodSync(path.join(repo, 'tool.sh'), 0o755);
    file('run.sh', '#!/bin/sh\n');
    fs.chmodSync(path.join(repo, 'run.sh'), 0o755);
    await turn('exec bit set');
    fs.chmodSync(path.join(repo, 'tool.sh'), 0o644);
    await turn('exec bit cleared');
  });

  it('symlinks: new, to a folder, dangling, retargeted, a file turned into one', async () => {
    fs.symlinkSync('src/a.txt', path.join(repo, 'link'));
    fs.symlinkSync('src', path.join(repo, 'src-link'));
    fs.symlinkSync('nowhere/at/all', path.join(repo, 'dangling'));
    await turn('new links');
    fs.rmSync(path.join(repo, 'link'));
    fs.symlinkSync('src/deep/b.txt', path.join(repo, 'link'));
    fs.rmSync(path.join(repo, 'src', 'a.txt'));
    fs.symlinkSync('deep/b.txt', path.join(repo, 'src', 'a.txt'));
    await turn('a link retargeted, a file now a link');
  });

  it('new nested folders, a whole folder deleted, a folder emptied, renames', async () => {
    file('n1/n2/n3/deep.txt', 'deep\n');
    file('n1/side.txt', 'side\n');
    await turn('a new nested folder');
    fs.rmSync(path.join(repo, 'src', 'deep'), { recursive: true });
    fs.rmSync(path.join(repo, 'dir', 'one.txt'));
    fs.rmSync(path.join(repo, 'dir', 'two.txt'));
    await turn('a folder with subfolders deleted, another left empty');
    fs.renameSync(path.join(repo, 'n1'), path.join(repo, 'moved'));
    fs.renameSync(path.join(repo, 'src', 'a.txt'), path.join(repo, 'src', 'renamed.txt'));
    await turn('a folder and a file renamed');
  });

  it('a file turned into a folder and a folder into a file; names git sorts with a trailing slash', async () => {
    fs.rmSync(path.join(repo, 'x'));
    file('x/inner.txt', 'x is a folder now\n');
    fs.rmSync(path.join(repo, 'dir'), { recursive: true });
    file('dir', 'dir is a file now\n');
    file('a-b', 'between a.b and a/\n');
    file('a0', 'after a/\n');
    file('a/in.txt', 'in a, edited\n');
    await turn('file ↔ folder');
  });

  it('binary, empty, unusual names; ignored new files and an ignored folder left out', async () => {
    file('bin.dat', Buffer.from([0, 255, 1, 254, 0, 0, 10]));
    file('empty.txt', '');
    file('with space/é ü 名.txt', 'unicode\n');
    file('build/out.js', 'ignored folder\n');
    file('src/trace.log', 'ignored file\n');
    await turn('binary, empty and unusual names, ignored files');
    file('src/trace.log', 'ignored, edited\n');
    file('src/a.txt', 'a, edited beside an ignored file\n');
    await turn('an ignored file edited beside a tracked one');
  });

  it('edits made outside between turns, then a rule change (through the index), then index-free again', async () => {
    execFileSync('sh', ['-c', 'printf "outside\\n" >> src/a.txt && mkdir -p o && printf "new\\n" > o/n.txt && rm dir/one.txt'], { cwd: repo });
    await turn('changes made by another process');
    file('keep.log', 'ignored until the rule changes\n');
    await turn('an ignored new file');
    file('.gitignore', 'build/\n');
    // keep.log is not named again; the scoped listing of the index path looks at what the watcher named.
    const tree = await takeCheckpoint(shadow);
    assert.equal(shadow.lastWay, 'index', 'a .gitignore change goes through the index');
    complete(tree.tree);
    file('keep.log', 'named again, not ignored now\n');
    file('src/deep/b.txt', 'b, edited after the index turn\n');
    await turn('index-free after an index turn');
  });

  it('a restarted runtime brings the index to the last index-free tree, then goes on index-free', async () => {
    file('src/a.txt', 'a, before the restart\n');
    fs.rmSync(path.join(repo, 'dir', 'two.txt'));
    const before = await turn('before the restart');
    shadow.watcher?.close();
    shadow.treeTurn?.close();
    // A new runtime: no state in memory, the same store.
    const restarted: ShadowRepo = { workTree: shadow.workTree, gitDir: shadow.gitDir, indexFile: shadow.indexFile, borrowed: shadow.borrowed };
    extra.push(restarted);
    assert.equal((await takeCheckpoint(restarted)).tree, before, 'the first checkpoint after a restart: the same tree');
    assert.equal(restarted.lastWay, 'index');
    file('src/deep/b.txt', 'b, after the restart\n');
    await turn('after the restart', 'index-free', restarted);
  });

  it('large files by reference, out of the tree', async function () {
    this.timeout(120_000);
    const big = path.join(repo, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(33 * 1024 * 1024, 7));
    file('src/a.txt', 'a, beside a large file\n');
    const { tree, large } = await takeCheckpoint(shadow);
    assert.equal(shadow.lastWay, 'index-free');
    assert.deepEqual(large.map(ref => ref.path), ['big.bin']);
    fs.renameSync(big, path.join(base, 'big.bin'));
    assert.equal(tree, expected(), 'the tree git writes for everything else');
    fs.renameSync(path.join(base, 'big.bin'), big);
    file('src/deep/b.txt', 'b, edited; the large file is still referenced\n');
    const next = await takeCheckpoint(shadow);
    assert.deepEqual(next.large.map(ref => ref.path), ['big.bin']);
  });
});
