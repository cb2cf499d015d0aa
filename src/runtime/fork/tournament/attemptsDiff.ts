// The difference between two attempts: attempt b's worktree state against attempt a's, as one patch.
import { snapshotTree } from '../../git/snapshot';
import { gitOk } from '../../git/run';
import type { ForkManager } from '../forkManager';
import { ChoiceError } from './applyChoice';

export async function attemptsDiff(forks: ForkManager, forkIds: readonly string[], a: string, b: string): Promise<string> {
  const [left, right] = [a, b].map(id => {
    const fork = forkIds.includes(id) ? forks.get(id) : undefined;
    if (!fork?.worktree || fork.worktree.discarded) throw new ChoiceError(`${id} is not an attempt of this tournament with a worktree.`);
    return fork.worktree;
  });
  const [leftTree, rightTree] = await Promise.all([snapshotTree(left.path), snapshotTree(right.path)]);
  // Both worktrees share the main repository's object store, so either can name both trees.
  return gitOk(right.path, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', leftTree, rightTree]);
}
