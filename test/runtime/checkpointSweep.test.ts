// fork.retention.days bounds checkpoints: the sweep keeps the trees written within that many days
// (and every object they need, however old), drops older ones, and removes a shadow with none left.
// Real git in temp folders; the shadow's tree log is aged by rewriting its timestamps.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import { sweepCheckpoints } from '../../src/runtime/checkpoint/sweepCheckpoints';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { initRepo, write } from './gitRepo';

const DAY = 24 * 3600_000;

function hasObject(gitDir: string, id: string): boolean {
  try {
    execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '-e', id], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function blobOf(gitDir: string, tree: string, file: string): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', `${tree}:${file}`], { encoding: 'utf8' }).trim();
}

describe('checkpoints: the retention sweep', function () {
  this.timeout(30_000);
  let base: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-sweep-')));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('drops trees older than the retention, keeps newer ones with the old objects they share', async () => {
    const repo = path.join(base, 'repo');
    fs.mkdirSync(repo);
    initRepo(repo, { 'README.md': 'readme\n' });
    write(repo, 'shared.txt', 'written long ago, still there\n');
    write(repo, 'old.txt', 'only in the old checkpoint\n');
    const store = path.join(base, 'store');
    const shadow = await shadowFor(store, repo);
    const old = await takeCheckpoint(shadow);
    fs.rmSync(path.join(repo, 'old.txt'));
    write(repo, 'new.txt', 'recent\n');
    const recent = await takeCheckpoint(shadow);
    const oldBlob = blobOf(shadow.gitDir, old.tree, 'old.txt');
    const sharedBlob = blobOf(shadow.gitDir, recent.tree, 'shared.txt');
    // The old tree was written 40 days ago, and so were the objects (prune goes by their age too).
    const logFile = path.join(shadow.gitDir, 'fork-agents-trees.log');
    const now = Date.now();
    fs.writeFileSync(logFile, fs.readFileSync(logFile, 'utf8').replace(/^\d+ (\S+)$/gm, (line, tree) => `${tree === old.tree ? now - 40 * DAY : now} ${tree}`));
    const aged = (now - 40 * DAY) / 1000;
    for (const id of [old.tree, recent.tree, oldBlob, sharedBlob]) {
      const file = path.join(shadow.gitDir, 'objects', id.slice(0, 2), id.slice(2));
      if (fs.existsSync(file)) fs.utimesSync(file, aged, aged);
    }

    assert.equal(await sweepCheckpoints(store, 30), 0);
    assert.equal(hasObject(shadow.gitDir, old.tree), false, 'the old checkpoint is gone');
    assert.equal(hasObject(shadow.gitDir, oldBlob), false, 'and what only it needed');
    assert.equal(hasObject(shadow.gitDir, recent.tree), true, 'the recent one stays');
    assert.equal(hasObject(shadow.gitDir, sharedBlob), true, 'with its old objects');
    assert.deepEqual(execFileSync('git', ['for-each-ref', '--format=%(refname)'], { cwd: repo, encoding: 'utf8' }).trim().split('\n'), ['refs/heads/main'], 'no ref in the user\'s repository');

    fs.writeFileSync(logFile, `${now - 40 * DAY} ${recent.tree}\n`);
    assert.equal(await sweepCheckpoints(store, 30), 1);
    assert.equal(fs.existsSync(shadow.gitDir), false, 'a shadow with nothing recent goes entirely');
  });
});
