// `fork-agents delete` of a worktree fork removes its worktree and branch (not left for start-up
// pruning); changes never applied or kept refuse the delete with the files named, --force discards them; a
// kept branch stays. Deleting a chat removes its forks' worktrees the same way and keeps the forks' records.
// Real CLI processes, the runtime, the fake model server and a real git repository.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jsonLines, lastJson } from './cliRunner';
import { useCliStore } from './cliStore';
import { forkBranches, initRepo, isForkRequest, worktreePaths } from './gitRepo';
import { call, say } from './script';

describe('cli: delete removes a worktree fork\'s worktree and branch', function () {
  this.timeout(60_000);
  const cliStore = useCliStore({ apiKey: 'k-cli', prefix: 'fa-wtdel-' });
  const { cli } = cliStore;
  let repo: string;

  beforeEach(() => {
    // A fork asked to write `<name>.txt` writes it; any other fork only answers.
    cliStore.fake.setResponder(r => {
      if (!isForkRequest(r)) return say('parent answer');
      const last = r.body.messages.at(-1).content;
      if (last[0].type === 'tool_result') return say('Scope: file.\nResult: written.');
      const name = /please write (\w+)\.txt/.exec(JSON.stringify(last))?.[1];
      return name ? call(['write_file', { path: `${name}.txt`, content: `${name}\n` }]) : say('Scope: nothing.\nResult: nothing to change.');
    });
    repo = cliStore.work;
    initRepo(repo, { 'README.md': '# repo\n' });
  });

  const chat = async () => {
    const run = await cli('chat', '--cwd', repo, '--json', 'hello');
    assert.equal(run.code, 0, run.stderr);
    return lastJson(run).sessionId as string;
  };
  const fork = async (sessionId: string, directive: string) => {
    const run = await cli('fork', '--cwd', repo, '--session', sessionId, '--worktree-root', path.join(cliStore.base, 'trees'), '--approval', 'auto', '--wait', '--json', directive);
    assert.equal(run.code, 0, run.stderr);
    const forkId = lastJson(run).forkId as string;
    const review = lastJson(await cli('review', '--fork', forkId, '--json'));
    return { forkId, worktree: review.worktree as string, branch: review.branch as string };
  };
  const forkIds = async () => jsonLines(await cli('list', '--json'))
    .filter(record => record.type === 'fork').map(record => record.id as string);

  it('refuses while changes are unapplied, naming them; deletes worktree and branch once applied; --force discards', async () => {
    const sessionId = await chat();
    const a = await fork(sessionId, 'please write alpha.txt');
    const refused = await cli('delete', '--fork', a.forkId);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /has changes not applied in .*: alpha\.txt\. Apply them \(fork-agents apply --fork f-[^)]+\), keep its branch .* or delete with --force/);
    assert.ok(fs.existsSync(a.worktree), 'nothing removed');
    assert.deepEqual(worktreePaths(repo), [repo, a.worktree]);
    assert.ok((await forkIds()).includes(a.forkId), 'the fork is still there');

    assert.equal((await cli('apply', '--fork', a.forkId)).code, 0);
    const deleted = await cli('delete', '--fork', a.forkId);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, new RegExp(`^removed worktree ${a.worktree} of ${a.forkId} and its branch$`, 'm'));
    assert.deepEqual(worktreePaths(repo), [repo]);
    assert.deepEqual(forkBranches(repo), []);
    assert.ok(!fs.existsSync(a.worktree));
    assert.ok(!(await forkIds()).includes(a.forkId));

    const b = await fork(sessionId, 'please write beta.txt');
    const forced = await cli('delete', '--fork', b.forkId, '--force', '--json');
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(lastJson(forced).worktreesRemoved, [{ forkId: b.forkId, path: b.worktree, discardedFiles: 1 }]);
    assert.deepEqual(worktreePaths(repo), [repo]);
    assert.deepEqual(forkBranches(repo), []);
    assert.ok(!fs.existsSync(path.join(repo, 'beta.txt')), 'discarded, never applied');
  });

  it('deleting a chat removes its forks\' worktrees (a kept branch stays), keeps the forks, and refuses first if one holds unapplied work', async () => {
    const sessionId = await chat();
    const clean = await fork(sessionId, 'look around');
    const kept = await fork(sessionId, 'please write gamma.txt');
    assert.equal((await cli('keep', '--fork', kept.forkId)).code, 0);
    const dirty = await fork(sessionId, 'please write delta.txt');

    const refused = await cli('delete', '--session', sessionId);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`fork ${dirty.forkId} .*delta\\.txt`));
    assert.doesNotMatch(refused.stderr, new RegExp(`fork (${clean.forkId}|${kept.forkId})`), 'only the fork that would lose work is named');
    assert.deepEqual(worktreePaths(repo).sort(), [repo, clean.worktree, kept.worktree, dirty.worktree].sort(), 'nothing removed');

    assert.equal((await cli('discard', '--fork', dirty.forkId)).code, 0);
    const deleted = await cli('delete', '--session', sessionId, '--json');
    assert.equal(deleted.code, 0, deleted.stderr);
    const removed = lastJson(deleted).worktreesRemoved;
    assert.deepEqual(removed.map((w: { forkId: string }) => w.forkId).sort(), [clean.forkId, kept.forkId].sort());
    assert.equal(removed.find((w: { forkId: string }) => w.forkId === kept.forkId).keptBranch, kept.branch);
    assert.deepEqual(worktreePaths(repo), [repo]);
    assert.deepEqual(forkBranches(repo), [kept.branch], 'the kept branch stays; the others are gone');
    const forks = await forkIds();
    for (const f of [clean, kept, dirty]) assert.ok(forks.includes(f.forkId), 'forks of a deleted chat keep their records');
    const transcript = await cli('transcript', '--fork', kept.forkId, '--json');
    assert.equal(transcript.code, 0, transcript.stderr);
  });
});
