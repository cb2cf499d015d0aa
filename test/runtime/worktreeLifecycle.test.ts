// Worktree forks across runtime restarts (revival reuses the worktree, start-up pruning), and the
// refusal outside a git repository (docs/design.md §4.6, §4.8).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkApply, forkList, forkStart, forkWait, worktreeList } from '../../src/common/protocol/forks';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { isForkRequest, forkBranches, initRepo, read, toolRuns, worktreePaths } from './gitRepo';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';
import { useWorktreeChat } from './worktreeChat';

describe('runtime: worktree forks across restarts', function () {
  this.timeout(60_000);
  const chat = useWorktreeChat(repo => initRepo(repo, { 'a.txt': 'one\n' }));
  const { start, wait } = chat;

  it('a revived fork resumes in the same worktree', async () => {
    chat.scripts.set('revive', [
      call(['write_file', { path: 'before.txt', content: 'written before the crash\n' }]),
      { fault: 'hang' } as never,
      call(['write_file', { path: 'after.txt', content: 'written after revival\n' }]),
    ]);
    const hung = new Promise<void>(resolve => chat.h.fake.onRequest(r => {
      if (isForkRequest(r) && r.rawBody.includes('before.txt') && r.body.messages.at(-1).content[0].type === 'tool_result') resolve();
    }));
    const fork = await start('revive me');
    await hung;
    await killRuntime(chat.h.runtimePid());
    await chat.h.reconnect();
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.worktree, fork.worktree);
    assert.equal(read(fork.worktree!.path, 'before.txt'), 'written before the crash\n');
    assert.equal(read(fork.worktree!.path, 'after.txt'), 'written after revival\n');
    assert.ok(!fs.existsSync(path.join(chat.repo, 'after.txt')));
    assert.equal(worktreePaths(chat.repo).length, 2, 'no second worktree');
  });

  it('a parent working in a subfolder gets the same subfolder of the worktree', async () => {
    const pkg = path.join(chat.repo, 'pkg');
    fs.mkdirSync(pkg);
    fs.writeFileSync(path.join(pkg, 'p.txt'), 'untracked in pkg\n');
    const parent = await chat.h.send('hello from pkg', { root: pkg });
    chat.scripts.set('subfolder', [call(['read_file', { path: 'p.txt' }], ['write_file', { path: 'q.txt', content: 'q\n' }])]);
    const fork = await sendRequest(chat.h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'subfolder work' });
    assert.equal(fork.root, path.join(fork.worktree!.path, 'pkg'));
    await wait(fork.id);
    assert.equal(read(fork.root, 'q.txt'), 'q\n');
    assert.deepEqual((await sendRequest(chat.h.client.endpoint, forkApply, { forkId: fork.id })).applied, ['pkg/q.txt']);
    assert.equal(read(pkg, 'q.txt'), 'q\n');
  });

  it('prunes worktrees of forks that no longer exist at start-up, keeping those with unapplied changes', async () => {
    chat.scripts.set('dirty', [call(['write_file', { path: 'dirty.txt', content: 'unapplied\n' }])]);
    chat.scripts.set('applied', [call(['write_file', { path: 'applied.txt', content: 'applied\n' }])]);
    const clean = await start('clean job');
    const dirty = await start('dirty job');
    const applied = await start('applied job');
    const live = await start('live job');
    await Promise.all([clean, dirty, applied, live].map(f => wait(f.id)));
    assert.deepEqual((await sendRequest(chat.h.client.endpoint, forkApply, { forkId: applied.id })).applied, ['applied.txt']);
    assert.equal(worktreePaths(chat.repo).length, 5);

    await killRuntime(chat.h.runtimePid());
    for (const gone of [clean, dirty, applied]) fs.rmSync(path.join(chat.h.storeDir, 'sessions', `${gone.id}.jsonl`));
    await chat.h.reconnect();
    const listing = await sendRequest(chat.h.client.endpoint, worktreeList, {});
    assert.deepEqual(listing.pruned.map(w => w.forkId).sort(), [clean.id, applied.id].sort());
    assert.deepEqual(listing.kept.map(w => [w.forkId, w.path, w.branch, w.changedFiles]), [[dirty.id, dirty.worktree!.path, dirty.worktree!.branch, 1]]);
    assert.deepEqual(worktreePaths(chat.repo).sort(), [chat.repo, dirty.worktree!.path, live.worktree!.path].sort());
    assert.deepEqual(forkBranches(chat.repo).sort(), [dirty.worktree!.branch, live.worktree!.branch].sort());
    for (const gone of [clean, applied]) assert.ok(!fs.existsSync(gone.worktree!.path));
    // This test's forks: the store holds the earlier tests' too.
    const forks = (await sendRequest(chat.h.client.endpoint, forkList, {})).forks.filter(f => [clean, dirty, applied, live].some(mine => mine.id === f.id));
    assert.deepEqual(forks.map(f => [f.id, f.worktree?.discarded]), [[live.id, undefined]], 'the live fork keeps its worktree');
  });
});

describe('runtime: worktree isolation outside a git repository', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.dispose());

  it('refuses worktree isolation with a clear message; shared (and the default) work in place', async () => {
    h = await startHarness();
    const parentScript: ScriptedTurn[] = [say('ok'), call(['Agent', { subagent_type: 'fork', description: 'x', prompt: 'y', isolation: 'worktree' }]), say('refused')];
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: shared.\nResult: done.') : parentScript.shift() ?? say('parent')));
    const { sessionId } = await h.send('hello');
    const start = (isolation?: 'worktree' | 'shared') => sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'work', isolation });
    await assert.rejects(start('worktree'), (e: Error) =>
      e.message === `Worktree isolation needs a git repository; ${fs.realpathSync(h.root)} is not inside one. Use isolation "shared" to let the fork work in place.`);
    for (const isolation of ['shared', undefined] as const) {
      const fork = await start(isolation);
      assert.equal(fork.isolation, 'shared');
      assert.equal(fork.root, fs.realpathSync(h.root));
      assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
    }
    await h.send('fork with a worktree', { sessionId });
    const result = toolRuns((await h.transcript(sessionId)).entries).find(run => run.name === 'Agent')!;
    assert.equal(result.isError, true);
    assert.match(result.content, /^Agent: Worktree isolation needs a git repository; .* Use isolation "shared"/);
  });
});
