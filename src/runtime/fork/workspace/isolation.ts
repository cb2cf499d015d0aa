// Where a new fork works (docs/design.md §4.8): its own git worktree — the default for forks inside a git
// repository — or the parent's folder ("shared"). Explicit worktree isolation outside git is refused.
import * as fs from 'node:fs';
import type { ChildKind, ForkWorktree, Isolation } from '../../../common/forks';
import { createForkWorktree } from '../../git/createWorktree';
import { repoInfo } from '../../git/repo';
import { WorktreeError, notARepoMessage } from '../../git/worktree';
import { forkRootIn } from '../history/createFork';

export interface IsolationRequest {
  kind: ChildKind;
  /** Absent: worktree for forks in a git repository, shared otherwise (and for regular subagents). */
  requested?: Isolation;
  parentRoot: string;
  id: string;
  name: string;
  worktreeRoot?: string;
  /** The store folder, recorded in the worktree's metadata for pruning. */
  owner: string;
  /** The tree the worktree starts from (a checkpoint's, copied into the repository); undefined: today's state. */
  stateAt?: () => Promise<string | undefined>;
}

export interface Placement { isolation: Isolation; worktree?: ForkWorktree }

export async function placeFork(request: IsolationRequest): Promise<Placement> {
  if (request.requested === 'shared') return { isolation: 'shared' };
  const repo = await repoInfo(request.parentRoot);
  if (!repo) {
    if (request.requested === 'worktree') throw new WorktreeError(notARepoMessage(request.parentRoot), 'not-a-repo');
    return { isolation: 'shared' };
  }
  if (request.requested === undefined && request.kind !== 'fork') return { isolation: 'shared' };
  const state = await request.stateAt?.();
  const worktree = await createForkWorktree({ repoRoot: repo.top, repo, worktreeRoot: request.worktreeRoot, slug: request.name, id: request.id, name: request.name, owner: request.owner, state });
  // The parent may work in a folder git does not track (empty or ignored): the fork gets it too, empty.
  fs.mkdirSync(forkRootIn(worktree, request.parentRoot), { recursive: true });
  return { isolation: 'worktree', worktree };
}
