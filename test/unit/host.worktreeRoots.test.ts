// Which workspace roots a window gains or loses for worktree forks, and what the worktree
// commands accept: the pure rules behind src/host/worktrees.
import * as assert from 'node:assert/strict';
import type { ForkState, ForkSummary, ForkWorktree } from '../../src/common/forks';
import type { WorktreeListing } from '../../src/common/protocol/forks';
import {
  PENDING_TTL_MS, actionableForks, foldersToDrop, foldersToPrune, forkFolderName, forkIdOf, keptOrphansText, pendingToAdopt, rootsToAdd,
} from '../../src/host/worktrees/rootPlan';
import type { FolderInfo, PendingRoot } from '../../src/host/worktrees/rootPlan';
import { WriteWatch, becameSettled, isSettled, rootsModeOf } from '../../src/host/worktrees/rootRules';
import type { AgentEvent } from '../../src/common/agentEvents';

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function fork(id: string, state: ForkState, worktree?: Partial<ForkWorktree>, extra: Partial<ForkSummary> = {}): ForkSummary {
  return {
    id, kind: 'fork', name: `task ${id}`, parentSessionId: 's1', origin: 'user', forkTurns: 'all',
    isolation: worktree ? 'worktree' : 'shared', root: worktree?.path ?? '/repo', directive: `do ${id}`, state,
    createdAt: `2025-01-01T00:00:0${id.length}Z`, modelTurns: 1, usage,
    worktree: worktree && { path: `/repo.forks/${id}`, branch: `fork/task-${id}`, base: 'b', repoRoot: '/repo', carried: 0, ...worktree },
    ...extra,
  };
}

const folder = (index: number, path: string, name = path.split('/').pop() ?? path): FolderInfo => ({ index, path, name });
const listing = (path: string, changedFiles = 0): WorktreeListing => ({ path, branch: `fork/x-${changedFiles}`, forkId: 'f-gone', repoRoot: '/repo', changedFiles });

describe('host: worktree fork roots', () => {
  const main = folder(0, '/repo');

  it('adds a root named after each live worktree fork of this repository, once', () => {
    const forks = [fork('a', 'running', {}), fork('b', 'completed', {}), fork('c', 'running'), fork('d', 'completed', { discarded: true })];
    assert.deepEqual(rootsToAdd(forks, [main], new Set()), [
      { forkId: 'a', path: '/repo.forks/a', name: 'Fork: task a', repoRoot: '/repo' },
      { forkId: 'b', path: '/repo.forks/b', name: 'Fork: task b', repoRoot: '/repo' },
    ]);
    // Already a folder, or added before (and perhaps removed by the user, or lost in a reload): left alone.
    assert.deepEqual(rootsToAdd(forks, [main, folder(1, '/repo.forks/a', 'Fork: task a')], new Set(['b'])), []);
    assert.equal(forkFolderName({ name: 'fix the parser' }), 'Fork: fix the parser');
  });

  it('relates forks to the window through their repository (a subfolder or a parent folder counts)', () => {
    const forks = [fork('a', 'running', {}), fork('z', 'running', { repoRoot: '/elsewhere', path: '/elsewhere.forks/z' })];
    assert.deepEqual(rootsToAdd(forks, [folder(0, '/repo/packages/web')], new Set()).map(t => t.forkId), ['a']);
    assert.deepEqual(rootsToAdd(forks, [folder(0, '/')], new Set()).map(t => t.forkId), ['a', 'z']);
    assert.deepEqual(rootsToAdd(forks, [folder(0, '/repository-two')], new Set()), [], '/repo is not a parent of /repository-two');
    assert.deepEqual(rootsToAdd(forks, [], new Set()), [], 'an empty window gets no roots');
  });

  it('drops the roots of discarded, pruned and vanished forks, last index first, and keeps the rest', () => {
    const forks = [fork('a', 'completed', { discarded: true }), fork('b', 'completed', {}), fork('c', 'running', {})];
    const folders = [
      main,
      folder(1, '/repo.forks/a', 'Fork: task a'),
      folder(2, '/repo.forks/b', 'Fork: task b'),
      folder(3, '/repo.forks/gone', 'Fork: old one'),
      folder(4, '/repo.forks/pruned', 'renamed by the user'),
      folder(5, '/repo.forks/kept', 'Fork: kept'),
      folder(6, '/home/me/notes', 'Fork: my notes folder'),
    ];
    const exists = (p: string) => p !== '/repo.forks/gone' && p !== '/repo.forks/pruned';
    const dropped = foldersToDrop(folders, forks, { pruned: [listing('/repo.forks/pruned')], exists });
    assert.deepEqual(dropped.map(f => f.index), [4, 3, 1]);
    // A live fork's root stays even when its folder is missing for a moment.
    assert.deepEqual(foldersToDrop([folder(1, '/repo.forks/c', 'Fork: task c')], forks, { pruned: [], exists: () => false }), []);
  });

  it('drops the "Fork: …" roots of forks applied or kept while no window watched, not a folder the user named', () => {
    const forks = [fork('a', 'completed', { appliedAt: '2025-01-02T00:00:00Z' }), fork('k', 'completed', { keptAt: '2025-01-02T00:00:00Z' }), fork('b', 'completed', {})];
    const folders = [main, folder(1, '/repo.forks/a', 'Fork: task a'), folder(2, '/repo.forks/k', 'my branch'), folder(3, '/repo.forks/b', 'Fork: task b')];
    assert.deepEqual(foldersToDrop(folders, forks, { pruned: [], exists: () => true }).map(f => f.index), [1]);
  });

  it('counts a fork as writing once an edit or a command finished without error; reads and failures do not count', () => {
    const watch = new WriteWatch();
    const call = (callId: string, category: 'read' | 'edit' | 'exec'): AgentEvent => ({ type: 'tool_call', callId, name: 'tool', category, description: '' });
    const result = (callId: string, isError = false): AgentEvent => ({ type: 'tool_result', callId, name: 'tool', isError, summary: '', files: [] });
    assert.equal(watch.wrote('f', call('r1', 'read')), false);
    assert.equal(watch.wrote('f', result('r1')), false, 'a read_file result');
    assert.equal(watch.wrote('f', call('e1', 'edit')), false, 'asked, not done yet');
    assert.equal(watch.wrote('f', result('e1', true)), false, 'denied or failed');
    assert.equal(watch.wrote('g', call('x1', 'exec')), false);
    assert.equal(watch.wrote('f', result('x1')), false, 'another fork\'s call id');
    assert.equal(watch.wrote('g', result('x1')), true, 'a command that ran');
    assert.equal(watch.wrote('g', result('x1')), false, 'each call counts once');
  });

  it('reads the mode from the setting, onWrite unless it names another, and sees Apply and Keep as they happen', () => {
    assert.equal(rootsModeOf(undefined), 'onWrite');
    assert.equal(rootsModeOf('never'), 'never');
    assert.equal(rootsModeOf('sometimes'), 'onWrite');
    const live = fork('a', 'completed', {});
    const applied = fork('a', 'completed', { appliedAt: '2025-01-02T00:00:00Z' });
    assert.equal(becameSettled(live, applied), true);
    assert.equal(becameSettled(applied, applied), false, 'a later state update of an applied fork');
    assert.equal(becameSettled(undefined, applied), false, 'first seen after a reload: the start-up pass decides');
    assert.equal(becameSettled(live, fork('a', 'completed', { keptAt: 'now' })), true);
    assert.equal(isSettled(applied), true);
    assert.equal(isSettled(live), false);
  });

  it('after "Save Workspace As…", the new workspace adopts recent roots of its repository that still exist', () => {
    const now = 1_000_000_000;
    const pending = (id: string, at: number, repoRoot = '/repo'): PendingRoot => ({ forkId: id, path: `/repo.forks/${id}`, name: `Fork: ${id}`, repoRoot, at });
    const all = [pending('a', now - 1000), pending('old', now - PENDING_TTL_MS), pending('gone', now), pending('other', now, '/elsewhere'), pending('there', now)];
    const folders = [main, folder(1, '/repo.forks/there', 'Fork: there')];
    assert.deepEqual(pendingToAdopt(all, folders, now, p => p !== '/repo.forks/gone'), [{ forkId: 'a', path: '/repo.forks/a', name: 'Fork: a', repoRoot: '/repo' }]);
  });

  it('asks the runtime to prune only the window\'s own folders, not fork roots', () => {
    const forks = [fork('b', 'completed', {})];
    assert.deepEqual(foldersToPrune([main, folder(1, '/repo.forks/b', 'b'), folder(2, '/x', 'Fork: x'), folder(3, '/other')], forks), ['/repo', '/other']);
  });

  it('offers review and discard for any live worktree, apply and keep for finished forks, newest first', () => {
    const forks = [
      fork('a', 'running', {}),
      fork('bb', 'completed', {}, { endedAt: '2025-01-02T00:00:00Z' }),
      fork('ccc', 'failed', {}, { endedAt: '2025-01-03T00:00:00Z' }),
      fork('d', 'completed'),
      fork('e', 'completed', { discarded: true }),
    ];
    assert.deepEqual(actionableForks(forks, 'any').map(f => f.id), ['ccc', 'bb', 'a']);
    assert.deepEqual(actionableForks(forks, 'finished').map(f => f.id), ['ccc', 'bb']);
  });

  it('reads the fork id from { forkId }, a bare id, or nothing', () => {
    assert.equal(forkIdOf({ forkId: 'f-1', webviewSection: 'fork' }), 'f-1');
    assert.equal(forkIdOf('f-2'), 'f-2');
    for (const none of [undefined, null, '', {}, { forkId: 3 }, { forkId: '' }, []]) assert.equal(forkIdOf(none), undefined);
  });

  it('lists kept orphaned worktrees in one message, with commands to tidy them in the details', () => {
    const one = keptOrphansText([listing('/repo.forks/x', 1)]);
    assert.equal(one.message, 'A fork worktree holds changes that were never applied, but its fork no longer exists: fork/x-1 (1 changed file).');
    const many = keptOrphansText([1, 2, 3, 4, 5].map(n => listing(`/repo.forks/it's ${n}`, n)));
    assert.match(many.message, /^5 fork worktrees hold .* their forks no longer exist: fork\/x-1 \(1 changed file\), fork\/x-2 \(2 changed files\), fork\/x-3 \(3 changed files\) and 2 more\.$/);
    assert.match(many.details, /git -C '\/repo\.forks\/it'\\''s 5' status --short/);
    assert.match(many.details, /worktree remove --force '\/repo\.forks\/it'\\''s 1' && git -C \/repo branch -D fork\/x-1/);
  });
});
