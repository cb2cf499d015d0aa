// Checkpoints hold their own objects (checkpoint/keepObjects.ts): the first tree is copied whole, and
// every later checkpoint writes with the user's objects out of view, so a file or folder that matches
// what the user committed meanwhile is still written into the shadow. Real git, real files; the shadow
// is read with no alternates, so an object it only borrows shows as missing.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { borrowedFrom, KEPT_NAME, serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { gitSync as git, tempRepo, write } from '../runtime/gitRepo';

/** Objects of `tree` (itself included) the shadow's own store lacks. */
function notOwn(shadow: ShadowRepo, tree: string): string[] {
  const own = (args: string[], input?: string) => execFileSync('git', [`--git-dir=${shadow.gitDir}`, ...args], { encoding: 'utf8', input, env: { ...process.env, GIT_ALTERNATE_OBJECT_DIRECTORIES: '' } });
  const ids = [tree, ...own(['ls-tree', '-r', '-t', tree]).split('\n').filter(Boolean).map(line => line.split(/\s+/)[2])];
  return own(['cat-file', '--batch-check'], ids.join('\n') + '\n').split('\n').filter(line => line.endsWith(' missing'));
}

describe("checkpoints: the shadow holds every object of its trees, none borrowed from the user's repository", function () {
  this.timeout(30_000);
  let base: string;
  let repo: string;
  let shadow: ShadowRepo;

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-own-', { 'src/a.txt': 'a\n', 'b/one.txt': 'one\n' }));
    shadow = await shadowFor(path.join(base, 'store'), repo);
  });
  afterEach(async () => {
    shadow.watcher?.close();
    await serialized(shadow, async () => undefined);
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('the first tree is copied; later files and folders the user committed meanwhile are written into the shadow', async () => {
    const first = await takeCheckpoint(shadow);
    await serialized(shadow, async () => undefined);
    assert.deepEqual(notOwn(shadow, first.tree), [], 'the first tree is copied whole');
    assert.equal(fs.existsSync(path.join(shadow.gitDir, 'objects', 'info', 'alternates')), false, 'alternates come from the environment only');
    // The user commits a new folder and an edit: the next checkpoint's blobs and trees are the user's objects too.
    write(repo, 'c/new.txt', 'new\n');
    write(repo, 'b/one.txt', 'one, edited\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'user commit');
    const second = await takeCheckpoint(shadow);
    assert.equal(second.tree, git(repo, 'rev-parse', 'HEAD^{tree}').trim(), 'the same tree as the user committed');
    assert.deepEqual(notOwn(shadow, second.tree), [], 'and every object of it in the shadow');
    // Back to the first commit's content: the first tree's objects, which the shadow has.
    write(repo, 'b/one.txt', 'one\n');
    const third = await takeCheckpoint(shadow);
    assert.deepEqual(notOwn(shadow, third.tree), []);
  });

  it("a shadow made by an earlier version (alternates in objects/info) moves them to its own file and copies its tree once more", async () => {
    await takeCheckpoint(shadow);
    await serialized(shadow, async () => undefined);
    const named = await borrowedFrom(shadow.gitDir);
    assert.equal(named, path.join(fs.realpathSync(repo), '.git', 'objects'));
    fs.rmSync(path.join(shadow.gitDir, 'fork-agents-borrowed'));
    fs.writeFileSync(path.join(shadow.gitDir, 'objects', 'info', 'alternates'), named + '\n');
    assert.ok(fs.existsSync(path.join(shadow.gitDir, KEPT_NAME)));
    assert.equal(await borrowedFrom(shadow.gitDir), named);
    assert.equal(fs.existsSync(path.join(shadow.gitDir, 'objects', 'info', 'alternates')), false);
    assert.equal(fs.existsSync(path.join(shadow.gitDir, KEPT_NAME)), false, 'its next checkpoint copies the whole tree');
  });

  it('a new shadow is a private, not bare repository without line-ending conversion, with the untracked cache on', () => {
    const config = (key: string) => git(repo, `--git-dir=${shadow.gitDir}`, 'config', '--get', key).trim();
    assert.equal(config('core.bare'), 'false');
    assert.equal(config('core.autocrlf'), 'false');
    assert.equal(config('core.untrackedCache'), 'true');
    assert.equal(fs.existsSync(path.join(shadow.gitDir, 'hooks')), false, 'no sample hooks');
    assert.equal(fs.statSync(path.join(shadow.gitDir, 'config')).mode & 0o777, 0o600);
  });
});
