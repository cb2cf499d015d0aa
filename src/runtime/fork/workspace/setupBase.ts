// After a fork's worktree is prepared (ignored files, links, setup commands), what preparation changed —
// lockfile churn, a linked folder git does not ignore as a symlink, build output outside .gitignore — is
// not the fork's work. It is committed on the fork's branch as the new base, so Review and Apply (which
// measure from the base) and `git status` in the worktree show only what the fork itself does.
import type { ForkWorktree } from '../../../common/forks';
import { commitTree, treeOf } from '../../git/repo';
import { git, gitOk } from '../../git/run';
import { snapshotTree } from '../../git/snapshot';
import { CHECKOUT_TIMEOUT_MS, isForkBranch } from '../../git/worktree';
import { updateWorktreeMeta } from '../../git/worktreeMeta';

/** The worktree's base after preparation: a new commit on the fork's branch when preparation changed anything, else the old base. */
export async function settleSetupBase(worktree: ForkWorktree, name: string): Promise<string> {
  if (!isForkBranch(worktree.branch)) return worktree.base;
  const cwd = worktree.path;
  const state = await snapshotTree(cwd);
  if (worktree.base && state === (await treeOf(cwd, worktree.base))) return worktree.base;
  const parents = worktree.base ? [worktree.base] : [];
  const base = await commitTree(cwd, state, parents, `fork-agents: worktree setup of ${name}\n\nWhat preparing the worktree changed (ignored files, links, setup commands); not the fork's work.`);
  const ref = `refs/heads/${worktree.branch}`;
  await gitOk(cwd, ['update-ref', '-m', 'fork-agents: worktree setup', ref, base, ...(worktree.base ? [worktree.base] : [])]);
  // The index follows the branch so `git status` is clean; the files are already as the base has them.
  const symbolic = await git(cwd, ['symbolic-ref', '-q', 'HEAD']);
  if (symbolic.stdout.trim() === ref) await gitOk(cwd, ['reset', '-q'], { timeoutMs: CHECKOUT_TIMEOUT_MS });
  await updateWorktreeMeta(cwd, { base });
  return base;
}
