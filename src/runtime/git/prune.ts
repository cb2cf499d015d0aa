// Start-up pruning (docs/design.md §4.8): fork worktrees whose fork no longer exists are removed — worktree,
// branch and folder — unless they hold changes that were never applied; those are kept and listed.
import type { WorktreeListing } from '../../common/protocol/forks';
import { gitCommonDir, repoTopLevel } from './repo';
import { git, pinGitDir } from './run';
import { discardForkWorktree, isForkBranch, unappliedChanges } from './worktree';
import { findForkWorktrees } from './worktreeMeta';

export interface PruneResult { pruned: WorktreeListing[]; kept: WorktreeListing[] }

/** Only worktrees created for `owner` (a store folder) are considered when it is given. */
export async function pruneStaleWorktrees(repoRoot: string, liveForkIds: ReadonlySet<string>, owner?: string): Promise<PruneResult> {
  const result: PruneResult = { pruned: [], kept: [] };
  const top = await repoTopLevel(repoRoot);
  if (!top) return result;
  for (const found of findForkWorktrees(await gitCommonDir(top))) {
    const { meta } = found;
    if (liveForkIds.has(meta.forkId) || !isForkBranch(meta.branch)) continue;
    // Another runtime (another window's store) may be running that fork right now.
    if (owner !== undefined && meta.owner !== undefined && meta.owner !== owner) continue;
    const listing: WorktreeListing = { path: found.path, branch: meta.branch, forkId: meta.forkId, repoRoot: meta.repoRoot, changedFiles: 0 };
    if (found.exists) {
      pinGitDir(found.path, found.adminDir); // found from the repository's side, not from the worktree's `.git` file
      const changes = await unappliedChanges(found.path, meta.base);
      if (changes.files.length > 0) {
        result.kept.push({ ...listing, changedFiles: changes.files.length });
        continue;
      }
    } else if (await hasCommitsBeyond(top, meta.base, meta.branch)) {
      // The folder is gone but the branch carries work (kept, or committed by the fork): leave the branch.
      await git(top, ['worktree', 'prune']);
      result.kept.push({ ...listing, path: found.path, changedFiles: 0 });
      continue;
    }
    await discardForkWorktree({ repoRoot: top, path: found.path, branch: meta.branch });
    result.pruned.push(listing);
  }
  return result;
}

async function hasCommitsBeyond(cwd: string, base: string, branch: string): Promise<boolean> {
  const count = await git(cwd, ['rev-list', '--count', `${base}..refs/heads/${branch}`]);
  return count.code === 0 && Number(count.stdout.trim()) > 0;
}
