// Two runtimes writing one shadow's index (two windows on one store): the in-memory list of the
// index's paths (trackedPaths.ts) must be of the index it claims to be of. The other runtime is a real
// child process taking checkpoints through the index in a loop, each adding a file; after each of ours,
// whenever the index is still the one our list names, the list must be exactly its paths. Without one
// writer at a time across runtimes (indexLock.ts), our list takes the other's write, made between ours
// and the identity read after it, for ours — and two git calls on the index at once fail on git's own
// index.lock, ending a checkpoint. And a lock a runtime left behind when it ended is taken over.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serialized, shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { indexId } from '../../src/runtime/checkpoint/trackedPaths';
import { tempRepo } from '../runtime/gitRepo';

const CHECKPOINT_JS = path.join(__dirname, '../../src/runtime/checkpoint/takeCheckpoint.js');
const SHADOW_JS = path.join(__dirname, '../../src/runtime/checkpoint/shadowRepo.js');
/** The other runtime: checkpoints through the index, each with a new file a tool touched. */
const OTHER = `
const fs = require('fs'), path = require('path');
const { shadowFor } = require(${JSON.stringify(SHADOW_JS)});
const { takeCheckpoint } = require(${JSON.stringify(CHECKPOINT_JS)});
const [store, repo] = process.argv.slice(1);
(async () => {
  const shadow = await shadowFor(store, repo);
  shadow.watch = false;
  for (let i = 0; ; i++) {
    fs.writeFileSync(path.join(repo, 'other', 'f' + i + '.txt'), String(i));
    await takeCheckpoint(shadow, ['other/f' + i + '.txt']);
    if (i === 0) process.stdout.write('ready\\n');
  }
})();
`;

describe('checkpoints: two runtimes writing one shadow index', function () {
  this.timeout(120_000);
  let base: string;
  let repo: string;
  let store: string;
  let shadow: ShadowRepo;

  beforeEach(async () => {
    ({ base, repo } = tempRepo('fork-agents-index-lock-', { 'a.txt': 'a\n' }));
    fs.mkdirSync(path.join(repo, 'other'));
    store = path.join(base, 'store');
    shadow = await shadowFor(store, repo);
    shadow.indexFree = false;
    await takeCheckpoint(shadow);
  });
  afterEach(async () => {
    shadow.watcher?.close();
    await serialized(shadow, async () => undefined);
    fs.rmSync(base, { recursive: true, force: true });
  });

  const indexPaths = () => new Set(execFileSync('git', [`--git-dir=${shadow.gitDir}`, 'ls-files', '-c', '-z'], { cwd: repo, env: { ...process.env, GIT_INDEX_FILE: shadow.indexFile } }).toString().split('\0').filter(Boolean));

  it('our list is never of the other runtime’s index', async () => {
    const other = spawn(process.execPath, ['-e', OTHER, store, repo], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        other.stdout.on('data', () => resolve());
        other.on('exit', code => reject(new Error(`the other runtime ended (${String(code)})`)));
      });
      let compared = 0;
      for (let i = 0; i < 60; i++) {
        fs.writeFileSync(path.join(repo, 'a.txt'), `a ${i}\n`);
        await takeCheckpoint(shadow);
        const before = await indexId(shadow);
        const listed = indexPaths();
        const list = shadow.tracked;
        if (!list || list.indexId !== before || (await indexId(shadow)) !== before) continue;
        compared++;
        assert.deepEqual([...listed].filter(p => !list.files.has(p)), [], `checkpoint ${i}: the index has paths the list lacks`);
        assert.deepEqual([...list.files].filter(p => !listed.has(p)), [], `checkpoint ${i}: the list has paths the index lacks`);
      }
      assert.ok(compared > 0, 'some lists were compared');
      assert.equal(other.exitCode, null, 'the other runtime’s checkpoints went on (none failed on git’s index.lock)');
    } finally {
      other.kill();
    }
  });

  it('a lock left by a runtime that ended is taken over', async () => {
    const ended = spawn(process.execPath, ['-e', '0']);
    await new Promise(resolve => ended.on('exit', resolve));
    fs.writeFileSync(path.join(shadow.gitDir, 'fork-agents-index.lock'), `${ended.pid} left-behind\n`);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a, after the lock\n');
    await takeCheckpoint(shadow);
    assert.ok(!fs.existsSync(path.join(shadow.gitDir, 'fork-agents-index.lock')), 'taken over, then released');
    assert.ok(indexPaths().has('a.txt'));
  });
});
