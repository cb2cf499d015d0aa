// File names the checkpoint must carry as bytes, and names git refuses: against git itself. A name
// that is not UTF-8 (Linux allows any byte but `/` and NUL) is recorded as `git add -A` records it,
// index-free and through the index, and a restore puts it back under its own bytes. A `.GIT` folder of
// any case is one git never records (its own rule, whatever the file system): the checkpoint leaves it
// out too, and never writes a tree git would refuse to read back.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bytesOf, nameOf } from '../../src/runtime/checkpoint/pathBytes';
import { restorePaths, treeChanges } from '../../src/runtime/checkpoint/restoreFiles';
import { serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { tempRepo } from '../runtime/gitRepo';

/** A relative name with raw bytes: `raw<0xff>.txt` and the like. */
const raw = (...parts: (string | number[])[]) => Buffer.concat(parts.map(part => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('checkpoints: names that are not UTF-8, and .git in other cases', function () {
  this.timeout(60_000);
  let base: string;
  let repo: string;
  let oracle: string;
  let shadow: ShadowRepo;

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-names-', { 'a.txt': 'a\n', 'src/b.txt': 'b\n' }));
    oracle = path.join(base, 'oracle.git');
    execFileSync('git', ['init', '-q', '--bare', oracle], { cwd: base });
    shadow = await shadowFor(path.join(base, 'store'), repo);
    await takeCheckpoint(shadow);
  });
  afterEach(async () => {
    shadow.watcher?.close();
    shadow.treeTurn?.close();
    await serialized(shadow, async () => undefined);
    fs.rmSync(base, { recursive: true, force: true });
  });

  const at = (rel: Buffer) => Buffer.concat([Buffer.from(`${repo}/`), rel]);
  const file = (rel: Buffer, content: string) => {
    const slash = rel.lastIndexOf('/');
    if (slash > 0) fs.mkdirSync(at(rel.subarray(0, slash)), { recursive: true });
    fs.writeFileSync(at(rel), content);
  };
  /** The tree `git add -A` writes for the work tree now, in a fresh index; `skip`: folders moved aside first. */
  const expected = (...skip: string[]): string => {
    for (const dir of skip) fs.renameSync(path.join(repo, dir), path.join(base, `aside-${dir.replace(/\//g, '_')}`));
    try {
      const env = { ...process.env, GIT_INDEX_FILE: path.join(base, `oracle-index-${Math.random()}`) };
      const run = (...args: string[]) => execFileSync('git', [`--git-dir=${oracle}`, `--work-tree=${repo}`, ...args], { cwd: repo, env, encoding: 'utf8' });
      run('add', '-A');
      return run('write-tree').trim();
    } finally {
      for (const dir of skip) fs.renameSync(path.join(base, `aside-${dir.replace(/\//g, '_')}`), path.join(repo, dir));
    }
  };
  /** The tree's paths as git lists them, in bytes. */
  const paths = (tree: string): Buffer[] => {
    const out = execFileSync('git', [`--git-dir=${shadow.gitDir}`, 'ls-tree', '-r', '-z', '--name-only', tree], { env: { ...process.env, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(repo, '.git', 'objects') } });
    const list: Buffer[] = [];
    for (let from = 0, nul = out.indexOf(0); nul >= 0; from = nul + 1, nul = out.indexOf(0, from)) list.push(out.subarray(from, nul));
    return list;
  };
  /** git reads the tree back (read-tree refuses one naming `.git` in any case). */
  const readable = (tree: string) => {
    const env = { ...process.env, GIT_INDEX_FILE: path.join(base, `read-${Math.random()}`), GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(repo, '.git', 'objects') };
    execFileSync('git', [`--git-dir=${shadow.gitDir}`, 'read-tree', tree], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  };

  it('names keep their bytes through the lossless decoding', () => {
    for (const bytes of [raw('raw', [0xff], '.txt'), raw([0xc3, 0x28]), raw([0xe2, 0x82]), raw('é', [0xed, 0xa0, 0x80], '名'), raw([0xf0, 0x9f, 0x98, 0x80]), raw('plain')]) {
      assert.deepEqual(bytesOf(nameOf(bytes)), bytes, bytes.toString('hex'));
    }
    assert.equal(nameOf(Buffer.from('é ü 名.txt')), 'é ü 名.txt', 'UTF-8 is the plain string');
  });

  it('a file and a folder whose names are not UTF-8: recorded index-free and through the index, restored under their own bytes', async () => {
    const odd = raw('raw', [0xff], '.txt');
    const inOdd = raw('dir', [0xfe], '/in.txt');
    file(odd, 'one\n');
    file(inOdd, 'inside\n');
    const one = (await takeCheckpoint(shadow)).tree;
    assert.equal(shadow.lastWay, 'index-free');
    assert.equal(one, expected(), 'the tree git writes');
    assert.ok(paths(one).some(p => p.equals(odd)) && paths(one).some(p => p.equals(inOdd)));

    file(odd, 'two\n');
    fs.rmSync(at(inOdd));
    const two = (await takeCheckpoint(shadow)).tree;
    assert.equal(two, expected(), 'an edit and a deletion of them');

    shadow.indexFree = false;
    file(odd, 'three\n');
    file(inOdd, 'again\n');
    const three = (await takeCheckpoint(shadow)).tree;
    assert.equal(shadow.lastWay, 'index');
    assert.equal(three, expected(), 'through the index');

    // A restore (a rewind's) to the first checkpoint, then to before the files were there.
    const back = await treeChanges(shadow, three, one);
    assert.deepEqual(await restorePaths(shadow, one, back), []);
    assert.equal(fs.readFileSync(at(odd), 'utf8'), 'one\n');
    assert.equal(fs.readFileSync(at(inOdd), 'utf8'), 'inside\n');
    fs.rmSync(at(odd));
    fs.rmSync(at(raw('dir', [0xfe])), { recursive: true });
    const none = (await takeCheckpoint(shadow)).tree;
    for (const p of paths(none)) assert.ok(!p.includes(0xff) && !p.includes(0xfe));
    assert.deepEqual(await restorePaths(shadow, one, await treeChanges(shadow, none, one)), []);
    assert.equal(fs.readFileSync(at(odd), 'utf8'), 'one\n', 'a deleted file comes back');
    assert.deepEqual(await restorePaths(shadow, none, await treeChanges(shadow, one, none)), []);
    assert.ok(!fs.existsSync(at(odd)) && !fs.existsSync(at(raw('dir', [0xfe]))), 'and goes again, its folder too');
  });

  it('.GIT, .Git and sub/.gIt folders are never recorded, index-free or through the index; the tree stays one git reads back', async () => {
    fs.mkdirSync(path.join(repo, '.GIT'));
    fs.writeFileSync(path.join(repo, '.GIT', 'x'), 'x\n');
    fs.mkdirSync(path.join(repo, 'src', '.gIt'));
    fs.writeFileSync(path.join(repo, 'src', '.gIt', 'y'), 'y\n');
    fs.writeFileSync(path.join(repo, 'src', 'c.txt'), 'c, recorded beside them\n');
    const one = (await takeCheckpoint(shadow)).tree;
    assert.equal(shadow.lastWay, 'index-free');
    readable(one);
    assert.equal(one, expected('.GIT', 'src/.gIt'), 'what git records of the rest');

    fs.writeFileSync(path.join(repo, '.GIT', 'x'), 'x, edited\n');
    fs.mkdirSync(path.join(repo, '.Git'));
    fs.writeFileSync(path.join(repo, '.Git', 'z'), 'z\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a, edited\n');
    shadow.indexFree = false;
    const two = (await takeCheckpoint(shadow, ['.Git/z']));
    assert.equal(shadow.lastWay, 'index');
    readable(two.tree);
    assert.equal(two.tree, expected('.GIT', '.Git', 'src/.gIt'), 'a tool’s file there is not recorded either');
  });

  it('names git refuses by core.protectNTFS (git~1, ".git.") go to git, which decides', async () => {
    fs.mkdirSync(path.join(repo, 'git~1'));
    fs.writeFileSync(path.join(repo, 'git~1', 'f'), 'f\n');
    fs.mkdirSync(path.join(repo, '.git.'));
    fs.writeFileSync(path.join(repo, '.git.', 'g'), 'g\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a, edited\n');
    const { tree } = await takeCheckpoint(shadow);
    assert.equal(shadow.lastWay, 'index', 'left to update-index');
    readable(tree);
    const protect = execFileSync('git', ['config', '--type=bool', '--default=true', 'core.protectNTFS'], { cwd: repo, encoding: 'utf8' }).trim();
    assert.equal(paths(tree).some(p => p.toString().startsWith('git~1/')), protect === 'false');
    assert.equal(paths(tree).some(p => p.toString().startsWith('.git./')), protect === 'false');
  });
});
