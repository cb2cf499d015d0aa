// File tools cannot leave their root (docs/design.md §6), through the real runtime: under a racer that
// swaps a folder for a symlink to an outside folder (check-then-use), and files hard-linked to outside files.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { toolRuns } from './gitRepo';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const CALLS_PER_TURN = 50;
/**
 * 42 turns: 2,100 calls of each kind (`npm test`). The racer takes a whole core while it runs, so the daily
 * loop (`npm run test:quick`) sets FORK_AGENTS_TEST_RACE_TURNS to run fewer; every assertion stays.
 */
const TURNS = Number(process.env.FORK_AGENTS_TEST_RACE_TURNS) > 0 ? Number(process.env.FORK_AGENTS_TEST_RACE_TURNS) : 42;

/** Swaps `dir` for a symlink to `outside` and back, as fast as it can, until killed; prints a line once running. */
function startRacer(dir: string, outside: string): Promise<ChildProcess> {
  // A write that finds `d` missing (parked) makes a new folder there: its files are moved into the real one
  // and the real one is put back, so the race goes on and every written file stays findable inside the root.
  const source = `
    const fs = require('fs');
    const [dir, outside] = process.argv.slice(1);
    const parked = dir + '.parked';
    const settle = () => {
      try {
        const st = fs.lstatSync(dir);
        if (st.isSymbolicLink()) fs.unlinkSync(dir);
        else if (st.isDirectory() && fs.existsSync(parked)) {
          for (const f of fs.readdirSync(dir)) fs.renameSync(dir + '/' + f, parked + '/' + f);
          fs.rmdirSync(dir);
        }
      } catch {}
      try { if (fs.existsSync(parked)) fs.renameSync(parked, dir); } catch {}
    };
    process.stdout.write('racing\\n');
    for (;;) {
      try { fs.renameSync(dir, parked); fs.symlinkSync(outside, dir); fs.unlinkSync(dir); fs.renameSync(parked, dir); } catch { settle(); }
    }`;
  const child = spawn(process.execPath, ['-e', source, dir, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise(resolve => child.stdout!.once('data', () => resolve(child)));
}

describe('runtime: file tools against races and hard links', function () {
  this.timeout(180_000);
  let h: Harness;
  let root: string;
  let outside: string;
  let racer: ChildProcess | undefined;

  beforeEach(async () => {
    h = await startHarness();
    root = fs.realpathSync(h.root);
    outside = path.join(path.dirname(root), 'outside');
    fs.mkdirSync(outside);
  });
  afterEach(async () => {
    racer?.kill('SIGKILL');
    racer = undefined;
    await h.dispose();
  });

  it(`a folder swapped for a symlink never lets a write or a read leave the root (${CALLS_PER_TURN * TURNS} writes, ${CALLS_PER_TURN * TURNS} reads)`, async () => {
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'inside.txt'), 'inside\n');
    fs.writeFileSync(path.join(outside, 'inside.txt'), 'OUTSIDE-SECRET\n');
    const turns: ScriptedTurn[] = [];
    for (let t = 0; t < TURNS; t++) {
      const calls: [string, unknown][] = [];
      for (let i = 0; i < CALLS_PER_TURN; i++) {
        calls.push(['write_file', { path: `d/w${t}-${i}.txt`, content: 'written\n' }]);
        calls.push(['read_file', { path: 'd/inside.txt' }]);
      }
      turns.push(call(...calls));
    }
    h.fake.enqueue(...turns, say('done'));
    racer = await startRacer(path.join(root, 'd'), outside);
    const result = await h.send('race');
    racer.kill('SIGKILL');
    assert.equal(result.stopReason, 'end_turn');

    const runs = toolRuns((await h.transcript(result.sessionId)).entries);
    const writes = runs.filter(r => r.name === 'write_file');
    const reads = runs.filter(r => r.name === 'read_file');
    assert.equal(writes.length, CALLS_PER_TURN * TURNS);
    assert.equal(reads.length, CALLS_PER_TURN * TURNS);
    const escapedWrites = fs.readdirSync(outside).filter(name => name !== 'inside.txt');
    const leakedReads = reads.filter(r => r.content.includes('OUTSIDE-SECRET'));
    const refused = runs.filter(r => r.isError && /changed while it was being opened|outside the session root|symbolic link/.test(r.content)).length;
    const otherErrors = runs.filter(r => r.isError).length - refused;
    const succeeded = runs.filter(r => !r.isError).length;
    console.log(`      racer: ${writes.length} writes, ${reads.length} reads; ${escapedWrites.length} escaped writes, ${leakedReads.length} leaked reads; ` +
      `${refused} refused because of the swap, ${otherErrors} other errors (folder momentarily missing), ${succeeded} succeeded`);
    assert.deepEqual(escapedWrites, [], 'no file was written outside the root');
    assert.equal(leakedReads.length, 0, 'no read returned the outside file');
    assert.ok(refused > 0, 'the racer did hit the window between check and use');
    assert.ok(succeeded > 0, 'calls between swaps still worked');
    // Every write that succeeded landed inside the root (a write may have made a new `d` while the racer had the real one parked).
    const inside = new Set(fs.readdirSync(root, { recursive: true }).map(p => path.basename(String(p))));
    const lost = writes.filter(r => !r.isError && !inside.has(path.basename(String(r.input.path))));
    assert.deepEqual(lost.map(r => r.input.path), []);
  });

  it('writes and edits through a hard link replace the link: the outside file keeps its content', async () => {
    const target = path.join(outside, 'global-store.txt');
    fs.writeFileSync(target, 'original outside\n');
    fs.linkSync(target, path.join(root, 'linked.txt'));
    fs.linkSync(target, path.join(root, 'linked2.txt'));
    fs.writeFileSync(path.join(root, 'script.sh'), '#!/bin/sh\necho 1\n', { mode: 0o755 });
    h.fake.enqueue(
      call(['write_file', { path: 'linked.txt', content: 'rewritten\n' }], ['edit_file', { path: 'linked2.txt', old_string: 'original', new_string: 'edited' }],
        ['edit_file', { path: 'script.sh', old_string: 'echo 1', new_string: 'echo 2' }]),
      say('done'),
    );
    const result = await h.send('write through links');
    const runs = toolRuns((await h.transcript(result.sessionId)).entries);
    assert.deepEqual(runs.map(r => r.isError), [false, false, false], runs.map(r => r.content).join('\n'));
    assert.equal(fs.readFileSync(target, 'utf8'), 'original outside\n', 'the outside file is untouched');
    assert.equal(fs.statSync(target).nlink, 1, 'both links inside the root were replaced by new files');
    assert.equal(fs.readFileSync(path.join(root, 'linked.txt'), 'utf8'), 'rewritten\n');
    assert.equal(fs.readFileSync(path.join(root, 'linked2.txt'), 'utf8'), 'edited outside\n');
    assert.equal(fs.statSync(path.join(root, 'script.sh')).mode & 0o777, 0o755, 'an edit keeps the file\'s mode');
    assert.deepEqual(fs.readdirSync(root).filter(n => n.includes('.fork-agents-')), [], 'no temporary file left behind');
  });
});
