// The in-memory list of the shadow index's paths (checkpoint/trackedPaths.ts) against the full scan it
// stands in for (real git, real files): a turn of edits and new plain files is listed from memory, and
// every checkpoint records what a shadow that scans every file records — also when another runtime on
// the same store writes the index meanwhile (the list is then behind), and after a runtime restart.
// Run twice: with the index-free checkpoint off (every turn through the index: the list's own cases),
// and on (treeTurn.ts), where a turn of these kinds writes no index and the other runtime's turns
// still send it through the index.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { commitGitignore, gitSync as git, tempRepo, write } from '../runtime/gitRepo';

for (const indexFree of [false, true]) describe(`checkpoints: the index paths kept in memory between checkpoints (index-free turns ${indexFree ? 'on' : 'off'})`, function () {
  this.timeout(30_000);
  let base: string;
  let repo: string;
  let watched: ShadowRepo;
  let scanned: ShadowRepo;
  const others: ShadowRepo[] = [];

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-tracked-', { 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'kept.log': 'tracked, though ignored\n', 'bin.dat': '\u0000\u0001' }));
    commitGitignore(repo, '*.log\nbuild/\n');
    watched = await shadowFor(path.join(base, 'store-watched'), repo);
    scanned = await shadowFor(path.join(base, 'store-scanned'), repo);
    scanned.watch = false;
    if (!indexFree) watched.indexFree = false;
    await takeCheckpoint(watched);
    await takeCheckpoint(scanned);
  });
  afterEach(async () => {
    for (const shadow of [watched, ...others.splice(0)]) {
      shadow.watcher?.close();
      await serialized(shadow, async () => undefined);
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  /**
   * `shadow`'s checkpoint against the scanning shadow's; `fromMemory`: whether it listed without ls-files
   * (index-free turns off); `free`: whether it wrote no index (on).
   */
  const same = async (what: string, shadow: ShadowRepo, fromMemory: boolean, free: boolean) => {
    const [a, b] = [await takeCheckpoint(shadow), await takeCheckpoint(scanned)];
    assert.ok(shadow.watcher?.healthy, `${what}: the watcher is in use`);
    assert.equal(a.tree, b.tree, `${what}: the checkpoint records what a full scan does`);
    if (indexFree) assert.equal(shadow.lastWay, free ? 'index-free' : 'index', `${what}: ${free ? 'no index' : 'through the index'}`);
    else assert.equal(shadow.tracked !== undefined, fromMemory, `${what}: ${fromMemory ? 'listed from memory' : 'listed by git'}`);
    return a.tree;
  };
  const file = (rel: string, content: string) => write(repo, rel, content);
  const paths = (tree: string) => git(repo, `--git-dir=${watched.gitDir}`, 'ls-tree', '-r', '--name-only', tree).split('\n');

  it('edits, deletions, new files, an ignored tracked file, binary content: from memory; new folders, ignored new files, a nested repository: by git', async () => {
    file('src/a.txt', 'a, edited\n');
    file('src/deep/b.txt', 'b, edited\n');
    await same('edits of tracked files', watched, true, true);
    fs.rmSync(path.join(repo, 'src', 'a.txt'));
    file('src/new.txt', 'new\n');
    file('kept.log', 'tracked and ignored, edited\n');
    fs.writeFileSync(path.join(repo, 'bin.dat'), Buffer.from([0, 255, 1, 254]));
    await same('a deletion, a new file, a tracked ignored file edited, binary content', watched, true, true);
    // Made by another process (the user's editor, a shell) between two turns: the same notices.
    execFileSync('sh', ['-c', 'printf "edited outside\\n" >> src/new.txt'], { cwd: repo });
    await same('an edit made outside the runtime', watched, true, true);
    file('fresh.log', 'untracked and ignored\n');
    await same('a new ignored file: git decides (it could be in the index)', watched, false, true);
    file('src/new.txt', 'the list is read again after a listing by git\n');
    await same('an edit after that', watched, true, true);
    file('newdir/deep/c.txt', 'c\n');
    await same('a new folder', watched, false, true);
    fs.mkdirSync(path.join(repo, 'inner'));
    git(path.join(repo, 'inner'), 'init', '-q');
    file('inner/own.txt', 'the nested repository\'s\n');
    const tree = await same('a nested repository', watched, false, true);
    file('inner/more.txt', 'still the nested repository\'s\n');
    file('src/deep/b.txt', 'b, edited again\n');
    const later = await same('a new file in the nested repository beside an edit', watched, true, true);
    assert.notEqual(later, tree);
    assert.ok(!paths(later).some(p => p.startsWith('inner/')), 'nothing of the nested repository is recorded');
    assert.ok(paths(later).includes('kept.log') && !paths(later).includes('fresh.log'));
  });

  it('a turn that edited more files than git is given as pathspecs is listed from memory too', async function () {
    this.timeout(90_000);
    for (let i = 0; i < 1_100; i++) file(`many/f${i}.txt`, `${i}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'many files');
    await same('the new files, in new folders', watched, false, true);
    for (let i = 0; i < 1_100; i++) file(`many/f${i}.txt`, `${i}, edited\n`);
    file('many/new.txt', 'and one new\n');
    fs.rmSync(path.join(repo, 'src', 'a.txt'));
    await same('1,100 edits, a new file and a deletion', watched, true, true);
  });

  it('another runtime writing the same shadow index, and a restarted runtime: the list is read again, nothing stale is recorded', async () => {
    file('src/a.txt', 'a, edited\n');
    await same('the list in use', watched, true, true);
    // A second runtime on the same store: its own view of the same shadow repository and index.
    const other: ShadowRepo = { workTree: watched.workTree, gitDir: watched.gitDir, indexFile: watched.indexFile, ...(indexFree ? {} : { indexFree: false as const }) };
    others.push(other);
    await takeCheckpoint(other);
    // The other runtime removes kept.log from the index (deleted); made again it is ignored and untracked.
    fs.rmSync(path.join(repo, 'kept.log'));
    await same('the other runtime records the deletion', other, true, true);
    file('kept.log', 'ignored now, not tracked\n');
    file('src/deep/b.txt', 'b, edited\n');
    const tree = await same('the first runtime, its list behind the index', watched, false, false);
    assert.ok(!paths(tree).includes('kept.log'), 'an ignored file the list still named is not recorded');
    file('src/deep/b.txt', 'b, edited again\n');
    await same('the first runtime once more', watched, true, true);
    // The other runtime saw kept.log come back too (ignored: git lists it), then an edit from its reread list.
    await same('the other runtime, after the first wrote the index', other, false, false);
    file('src/a.txt', 'a, from the other runtime\n');
    await same('the other runtime, its list read again', other, true, true);
  });
});
