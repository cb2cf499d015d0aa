// Creates a fork's worktree (docs/design.md §4.8) on branch fork/<slug>-<shortid>, outside the main working
// tree, holding the parent's current state: HEAD plus uncommitted changes (staged and not, deletions,
// renames) and untracked-but-not-ignored files. That state is committed as the fork's base (parent:
// HEAD), so "the fork's changes" are exactly base..worktree and the carried files need no copying.
import { existsSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ForkWorktree } from '../../common/forks';
import { commitTree, headAndTree, isInsidePath, realpathOfExisting, repoInfo } from './repo';
import type { RepoInfo } from './repo';
import { gitOk, pinGitDir } from './run';
import { changedPaths, snapshotTree } from './snapshot';
import { CHECKOUT_TIMEOUT_MS, WORKTREES_FOLDER, WorktreeError, defaultWorktreeRoot, discardForkWorktree, isForkBranch, notARepoMessage, shortForkId, slugify } from './worktree';
import { writeWorktreeMeta } from './worktreeMeta';

export interface CreateWorktreeOptions {
  /** Any folder inside the main working tree (the parent session's root). */
  repoRoot: string;
  /** What `repoInfo(repoRoot)` returned, when the caller already asked. */
  repo?: RepoInfo;
  /** Folder that holds the worktrees (setting fork.worktreeRoot); relative paths are taken from the repository's top. */
  worktreeRoot?: string;
  slug: string;
  id: string;
  /** For the base commit's message. */
  name?: string;
  /** Recorded so only the runtime serving this store prunes the worktree (its store folder). */
  owner?: string;
  /**
   * The state to start from, a tree in the repository (a checkpoint's: Fork from here on an earlier
   * message); absent: the parent's state now.
   */
  state?: string;
}

export async function createForkWorktree(options: CreateWorktreeOptions): Promise<ForkWorktree> {
  const repo = options.repo ?? (await repoInfo(options.repoRoot));
  if (!repo) throw new WorktreeError(notARepoMessage(options.repoRoot), 'not-a-repo');
  const { top } = repo;
  const root = await prepareWorktreeRoot(top, options.worktreeRoot);
  const suffix = `${slugify(options.slug)}-${shortForkId(options.id)}`;
  const branch = `fork/${suffix}`;
  // Narrower than git's own rules (check-ref-format): lower-case letters, digits and dashes only.
  if (!isForkBranch(branch)) throw new WorktreeError(`Invalid fork branch name ${JSON.stringify(branch)}.`, 'failed');
  const dir = path.join(root, suffix);
  if (existsSync(dir)) throw new WorktreeError(`The worktree folder ${dir} already exists.`, 'failed');
  const add = (commit: string) => gitOk(top, ['worktree', 'add', '--quiet', '-b', branch, '--', dir, commit], { timeoutMs: CHECKOUT_TIMEOUT_MS });

  const head = await headAndTree(top);
  // The checkout of HEAD (most of the time) runs while the parent's state is snapshotted.
  const checkout = head ? add(head.commit).then(() => undefined, (error: unknown) => error) : undefined;
  let base: string;
  let state: string;
  try {
    state = options.state ?? (await snapshotTree(top, repo.indexFile));
    base = head?.commit ?? '';
    if (!head || head.tree !== state) {
      const what = options.state ? 'The files as they were at the message the fork started from (its checkpoint).' : "The parent's uncommitted and untracked files when the fork started.";
      const message = `fork-agents: base of ${options.name ?? suffix}\n\n${what}`;
      base = await commitTree(top, state, head ? [head.commit] : [], message);
    }
  } catch (error) {
    // Safe to drop: undoing a half-made worktree: the error rethrown below is the one that matters; leftovers are pruned.
    if (checkout && !(await checkout)) await discardForkWorktree({ repoRoot: top, path: dir, branch }).catch(() => undefined);
    throw error;
  }
  if (checkout) {
    const failed = await checkout;
    if (failed) throw failed;
  } else {
    await add(base);
  }
  const real = await fs.realpath(dir);
  // Read once, now, before the fork runs: from here on the runtime's git never reads the worktree's `.git` file.
  const gitDir = await fs.realpath((await gitOk(real, ['rev-parse', '--absolute-git-dir'])).trim());
  pinGitDir(real, gitDir);
  const [carried] = await Promise.all([
    head?.tree === state ? Promise.resolve(0) : changedPaths(top, head?.tree, state).then(paths => paths.length),
    // Only the carried files change: the branch moves to the base and the worktree follows it.
    head && base !== head.commit ? gitOk(real, ['reset', '-q', '--hard', base], { timeoutMs: CHECKOUT_TIMEOUT_MS }) : undefined,
  ]);
  await writeWorktreeMeta(real, { version: 1, forkId: options.id, branch, base, parentHead: head?.commit, repoRoot: top, owner: options.owner, createdAt: new Date().toISOString() });
  return { path: real, branch, base, parentHead: head?.commit, repoRoot: top, gitDir, carried };
}

async function prepareWorktreeRoot(top: string, configured: string | undefined): Promise<string> {
  const wanted = configured?.trim()
    ? path.resolve(top, configured.trim().replace(/^~(?=$|[\\/])/, os.homedir()))
    : defaultWorktreeRoot(top);
  // Checked before creating anything: a refused setting must not leave a folder in the repository.
  const real = await realpathOfExisting(wanted);
  if (isInsidePath(top, real)) {
    throw new WorktreeError(`The worktree folder ${real} is inside the repository ${top}; choose one outside it (setting fork.worktreeRoot).`, 'bad-root');
  }
  await fs.mkdir(real, { recursive: true });
  const root = await fs.realpath(real);
  await refuseOthersFolders(root);
  return root;
}

/**
 * The worktrees' folder (and the shared `.fork-agents-worktrees` above it) must be ours: a repository in a
 * shared folder such as /tmp lets another user create them first, and whoever owns a folder can rename what
 * is in it, so they could swap a fork's worktree for files of their own while the fork works there.
 */
async function refuseOthersFolders(root: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: folder ownership is not a uid
  const parent = path.dirname(root);
  for (const dir of path.basename(parent) === WORKTREES_FOLDER ? [parent, root] : [root]) {
    const owner = (await fs.stat(dir)).uid;
    if (owner !== uid) {
      throw new WorktreeError(`The worktree folder ${dir} belongs to another user (uid ${owner}, you are ${uid}): they could swap a fork's files, so no fork is created there. Remove it, or choose another folder (setting fork.worktreeRoot, or --worktree-root).`, 'bad-root');
    }
  }
}
