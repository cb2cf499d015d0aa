// The checkpoint watcher against the full scan it replaces (real git, real files): after each change
// made to a repository, a shadow that asks git only about the watcher's paths records the same tree as
// one that scans every file.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { ChangeWatcher } from '../../src/runtime/checkpoint/changeWatcher';
import { commitGitignore, gitSync as git, tempRepo, write } from '../runtime/gitRepo';

describe('checkpoints: the watcher names what changed, and records what a full scan would', function () {
  this.timeout(30_000);
  let base: string;
  let repo: string;
  let watched: ShadowRepo;
  let scanned: ShadowRepo;

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-watch-', { 'src/a/one.txt': 'one\n', 'src/two.txt': 'two\n', '.gitignore': 'build/\n' }));
    fs.mkdirSync(path.join(repo, 'empty-at-start'));
    watched = await shadowFor(path.join(base, 'store-watched'), repo);
    scanned = await shadowFor(path.join(base, 'store-scanned'), repo);
    scanned.watch = false;
    await takeCheckpoint(watched);
    await takeCheckpoint(scanned);
  });
  afterEach(() => {
    watched.watcher?.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  const same = async (what: string) => {
    const [a, b] = [await takeCheckpoint(watched), await takeCheckpoint(scanned)];
    assert.ok(watched.watcher?.healthy, `${what}: the watcher is in use`);
    assert.equal(a.tree, b.tree, `${what}: the watched checkpoint records what a scan does`);
    return a.tree;
  };
  const file = (rel: string, content: string) => write(repo, rel, content);

  it('edits, new nested folders, folder moves and removals, deletions, ignored folders, and nothing changed', async () => {
    const first = await same('nothing yet');
    file('src/a/one.txt', 'one, edited\n');
    assert.notEqual(await same('an edit in a nested folder'), first);
    file('new/deep/er/f.txt', 'deep\n');
    await same('a new nested folder with a file');
    file('new/deep/er/f.txt', 'deep, edited\n');
    file('new/deep/g.txt', 'g\n');
    await same('files in the folders made since');
    fs.renameSync(path.join(repo, 'new'), path.join(repo, 'moved'));
    await same('the folder moved');
    file('moved/deep/er/f.txt', 'edited where it moved to\n');
    await same('an edit under the moved folder');
    fs.rmSync(path.join(repo, 'moved'), { recursive: true });
    fs.rmSync(path.join(repo, 'src', 'two.txt'));
    await same('a folder and a tracked file removed');
    file('build/out.js', 'ignored\n');
    file('empty-at-start/now.txt', 'a file in a folder that was empty when watching began\n');
    const last = await same('an ignored folder, and a folder empty at the start');
    assert.equal(await same('nothing changed'), last);
    assert.ok(!git(repo, `--git-dir=${watched.gitDir}`, 'ls-tree', '-r', '--name-only', last).includes('build/'), 'ignored files are not recorded');
  });
});

describe('checkpoints: every change the watcher reports is in the checkpoint', function () {
  this.timeout(30_000);
  let base: string;
  let repo: string;
  let shadow: ShadowRepo;

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-reported-', { 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'swap': 'a file for now\n', 'kept.log': 'tracked, though ignored\n' }));
    // Ignored once tracked: kept.log stays in the index.
    commitGitignore(repo, '*.log\n');
    shadow = await shadowFor(path.join(base, 'store'), repo);
    await takeCheckpoint(shadow);
  });
  afterEach(async () => {
    shadow.watcher?.close();
    await serialized(shadow, async () => undefined);
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** What git itself records for the folder now: its own index from HEAD, `git add -A`, write-tree (no code of ours). */
  const gitsOwnTree = () => {
    const env = { ...process.env, GIT_INDEX_FILE: path.join(base, 'expected-index') };
    const run = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' });
    run('read-tree', 'HEAD');
    run('add', '-A');
    return run('write-tree').trim();
  };
  /** The paths the watcher reports for the change just made, then the checkpoint that follows them. */
  const recorded = async (what: string) => {
    const watcher = shadow.watcher!;
    const take = watcher.take.bind(watcher);
    let reported: Set<string> | undefined;
    watcher.take = async () => (reported = await take());
    try {
      const { tree } = await takeCheckpoint(shadow);
      assert.ok(reported && reported.size > 0, `${what}: the watcher reported it (${reported === undefined ? 'a full scan instead' : 'nothing'})`);
      assert.equal(tree, gitsOwnTree(), `${what}: the checkpoint has what git itself records (reported: ${[...reported].join(', ')})`);
    } finally {
      watcher.take = take;
    }
  };
  const file = (rel: string, content: string) => write(repo, rel, content);

  it('edits, a mode change, a file turned folder and back, a symlink, tracked and untracked ignored files, a touch', async () => {
    file('src/deep/b.txt', 'b, edited\n');
    await recorded('an edit of a tracked file');
    fs.chmodSync(path.join(repo, 'src', 'a.txt'), 0o755);
    await recorded('a tracked file made executable');
    fs.rmSync(path.join(repo, 'swap'));
    file('swap/inside.txt', 'now a folder\n');
    await recorded('a tracked file replaced by a folder of files');
    fs.rmSync(path.join(repo, 'swap'), { recursive: true });
    file('swap', 'a file again\n');
    await recorded('the folder replaced by a file');
    fs.symlinkSync('src/a.txt', path.join(repo, 'link'));
    await recorded('a new symlink');
    file('kept.log', 'tracked and ignored, edited\n');
    file('fresh.log', 'untracked and ignored\n');
    await recorded('a tracked ignored file edited, an untracked ignored one made');
    fs.rmSync(path.join(repo, 'src', 'deep'), { recursive: true });
    await recorded('a folder of tracked files removed');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(repo, 'src', 'a.txt'), later, later);
    await recorded('a touch, content unchanged');
  });
});

describe('checkpoints: a repository whose own index is split', () => {
  it('is checkpointed as git records it (the shadow is not seeded from an index it cannot read)', async function () {
    this.timeout(30_000);
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-split-')));
    try {
      const repo = path.join(base, 'repo');
      fs.mkdirSync(repo);
      fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
      git(repo, 'init', '-q');
      git(repo, 'config', 'core.splitIndex', 'true');
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'start');
      fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
      git(repo, 'add', 'b.txt');
      assert.ok(fs.readdirSync(path.join(repo, '.git')).some(name => name.startsWith('sharedindex.')), 'the user\'s index is split');
      const shadow = await shadowFor(path.join(base, 'store'), repo);
      const { tree } = await takeCheckpoint(shadow);
      shadow.watcher?.close();
      // The copy of the first tree's objects, queued behind it, ends before the folder goes.
      await serialized(shadow, async () => undefined);
      assert.equal(tree, git(repo, 'write-tree').trim());
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('checkpoints: a tree that churns faster than the watcher should follow is scanned instead', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-churn-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the changed files while the notices stay under the cap, and gives up (scan) past it', async () => {
    const calm = new ChangeWatcher(dir, new Set(), 1_000);
    const churned = new ChangeWatcher(dir, new Set(), 20);
    assert.ok(calm.start() && churned.start());
    try {
      for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), 'x');
      const named = await calm.take();
      assert.ok(named && named.has('f0.txt') && named.has('f49.txt'), 'under the cap the files are named');
      assert.equal(await churned.take(), undefined, 'past the cap the checkpoint scans');
      assert.equal(churned.healthy, false);
    } finally {
      calm.close();
      churned.close();
    }
  });
});
