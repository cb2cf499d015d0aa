// Facts about the repository around a folder: is it one, where its top is, its HEAD, git's own paths,
// and the identity synthetic commits are made with.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitError, git, gitOk } from './run';

export async function isGitRepo(cwd: string): Promise<boolean> {
  const result = await git(cwd, ['rev-parse', '--is-inside-work-tree']);
  return result.code === 0 && result.stdout.trim() === 'true';
}

export interface RepoInfo {
  /** Real path of the working tree's top folder. */
  top: string;
  /** This working tree's index file. */
  indexFile: string;
}

/** One git call for what fork creation needs to know; null when cwd is not inside a working tree. */
export async function repoInfo(cwd: string): Promise<RepoInfo | null> {
  // --show-toplevel fails outside a working tree (and inside .git), so this also answers "is it a repo".
  const result = await git(cwd, ['rev-parse', '--show-toplevel', '--git-path', 'index']);
  const [top, index] = result.stdout.split('\n');
  if (result.code !== 0 || !top || !index) return null;
  return { top: await fs.realpath(top), indexFile: path.resolve(cwd, index) };
}

/** The real path of the working tree's top folder, or null when cwd is not inside a working tree. */
export async function repoTopLevel(cwd: string): Promise<string | null> {
  return (await repoInfo(cwd))?.top ?? null;
}


/** HEAD's commit and tree in one call; undefined in a repository without commits. */
export async function headAndTree(cwd: string): Promise<{ commit: string; tree: string } | undefined> {
  // The trailing `--` makes both arguments revisions even if files of those names exist.
  const result = await git(cwd, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}', '--']);
  const [commit, tree] = result.stdout.split('\n');
  return result.code === 0 && /^[0-9a-f]+$/.test(commit) && /^[0-9a-f]+$/.test(tree) ? { commit, tree } : undefined;
}

export async function treeOf(cwd: string, commit: string): Promise<string> {
  return (await gitOk(cwd, ['rev-parse', '--verify', `${commit}^{tree}`])).trim();
}

/** A path inside git's own folder for this working tree (`--git-path`), absolute. */
export async function gitPath(cwd: string, name: string): Promise<string> {
  return path.resolve(cwd, (await gitOk(cwd, ['rev-parse', '--git-path', name])).trim());
}

export async function gitCommonDir(cwd: string): Promise<string> {
  return path.resolve(cwd, (await gitOk(cwd, ['rev-parse', '--git-common-dir'])).trim());
}

const FALLBACK_IDENTITY: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Fork Agents', GIT_AUTHOR_EMAIL: 'fork-agents@localhost',
  GIT_COMMITTER_NAME: 'Fork Agents', GIT_COMMITTER_EMAIL: 'fork-agents@localhost',
};

/**
 * A commit the runtime makes itself (a fork's base, a kept fork's work): `git commit-tree` with the
 * user's identity, or — only when git has none — a fixed one, so a repository without user.name still
 * gets forks. Never signed: a background fork cannot answer a passphrase prompt.
 */
export async function commitTree(cwd: string, tree: string, parents: string[], message: string): Promise<string> {
  const args = ['commit-tree', '--no-gpg-sign', ...parents.flatMap(p => ['-p', p]), '-m', message, tree];
  let result = await git(cwd, args);
  if (result.code !== 0 && /identity|tell me who you are|empty ident|user\.(email|name)/i.test(result.stderr)) {
    result = await git(cwd, args, { env: FALLBACK_IDENTITY });
  }
  if (result.code !== 0) throw new GitError(args, result);
  return result.stdout.trim();
}

/** Whether `candidate` is `root` or below it (both absolute, already resolved). */
export function isInsidePath(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The real path of a folder that may not exist yet: its deepest existing ancestor resolved, the rest appended. */
export async function realpathOfExisting(folder: string): Promise<string> {
  const missing: string[] = [];
  for (let dir = folder; ; dir = path.dirname(dir)) {
    try {
      return path.join(await fs.realpath(dir), ...missing);
    } catch {
      if (path.dirname(dir) === dir) return folder;
      missing.unshift(path.basename(dir));
    }
  }
}
