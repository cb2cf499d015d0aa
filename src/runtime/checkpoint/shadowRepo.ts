// The shadow repository of one working folder: a private git directory in the runtime's store
// (`<store>/checkpoints/<hash of the folder>.git`) whose objects hold the folder's checkpoints. Every call
// names it with --git-dir / --work-tree and its own index file, so the user's repository — branches,
// index, stash, refs, config — is never read for writing or written; nothing in it is ever pushed.
// Objects the user's repository already has are read through alternates, not copied — named by the
// environment on each call (GIT_ALTERNATE_OBJECT_DIRECTORIES), not by `objects/info/alternates`, so the
// checkpoint's own writes can leave them out of view and write every object they need into the shadow.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { repoInfo } from '../git/repo';
import { git, gitBytes, gitOk, GitError } from '../git/run';
import type { GitBytesResult, GitOptions, GitResult } from '../git/run';
import { ensurePrivateDir } from '../../ipc/privateFs';
import type { ChangeWatcher } from './changeWatcher';
import { nameOf } from './pathBytes';
import type { TrackedPaths } from './trackedPaths';
import type { TreeTurnState } from './treeTurn';
import type { LargeFileRef } from '../session/records';

export interface ShadowRepo {
  /** The folder checkpoints cover: the repository's top inside git, else the session's root itself. */
  workTree: string;
  gitDir: string;
  indexFile: string;
  /** The tree the last checkpoint wrote (only checkpoints write the index): reused while nothing changed. */
  lastTree?: string;
  /** The last tree whose objects are all in the shadow's own store (checkpoint/keepObjects.ts). */
  keptTree?: string;
  /** A fork's worktree: its first tree is its base, kept by the fork's branch; not copied (keepObjects.ts). */
  baseOnBranch?: boolean;
  /** The files the last checkpoint kept by reference (outside the index). */
  lastLarge?: LargeFileRef[];
  /** What changed since the last checkpoint, from file notices (checkpoint/changeWatcher.ts); made at the first. */
  watcher?: ChangeWatcher;
  /** The index's paths in memory, while the index is the one the last checkpoint wrote (checkpoint/trackedPaths.ts). */
  tracked?: TrackedPaths;
  /** The index-free checkpoint's long-lived git processes and trees read (checkpoint/treeTurn.ts). */
  treeTurn?: TreeTurnState;
  /** The tree this runtime last wrote through the index, and the index file's identity then (trackedPaths.ts). */
  indexTree?: string;
  indexSeen?: string;
  /** How the last checkpoint was written (the tests' and the bench's view of which path ran). */
  lastWay?: 'index-free' | 'index';
  /** false: every checkpoint goes through the index (the bench's and the tests' comparison). */
  indexFree?: false;
  /** false: never watch, every checkpoint scans the whole tree (the bench's comparison). */
  watch?: false;
  /** The user's objects folder the shadow reads (a git work tree's), or undefined (a plain folder). */
  borrowed?: string;
}

/** Options of a call in the shadow. `ownObjects`: the user's objects out of view (checkpoint writes). */
export interface ShadowGitOptions extends GitOptions {
  ownObjects?: true;
}

/** The file in the shadow's git folder naming the user's objects folder. */
const BORROWED_NAME = 'fork-agents-borrowed';
/** The file naming the last tree whose objects are all the shadow's own (checkpoint/keepObjects.ts). */
export const KEPT_NAME = 'fork-agents-kept';

const opened = new Map<string, Promise<ShadowRepo>>();
const queues = new Map<string, Promise<unknown>>();

export function checkpointsDir(storeDir: string): string {
  return path.join(storeDir, 'checkpoints');
}

/** The shadow repository for the folder `root` works in, created on first use. */
export function shadowFor(storeDir: string, root: string): Promise<ShadowRepo> {
  const key = `${storeDir}\0${root}`;
  let shadow = opened.get(key);
  if (!shadow) {
    shadow = openShadow(storeDir, root);
    opened.set(key, shadow);
    shadow.catch(() => opened.delete(key));
  }
  return shadow;
}

async function openShadow(storeDir: string, root: string): Promise<ShadowRepo> {
  const real = await fs.realpath(root);
  const repo = await repoInfo(real);
  const workTree = repo?.top ?? real;
  const dir = checkpointsDir(storeDir);
  ensurePrivateDir(dir);
  const gitDir = path.join(dir, createHash('sha256').update(workTree).digest('hex').slice(0, 24) + '.git');
  const shadow: ShadowRepo = { workTree, gitDir, indexFile: path.join(gitDir, 'index') };
  try {
    await fs.access(path.join(gitDir, 'HEAD'));
    shadow.borrowed = await borrowedFrom(gitDir);
    return shadow;
  } catch {
    // First use: made below.
  }
  const staging = `${gitDir}.${process.pid}.${Date.now()}.tmp`;
  // Private like the rest of the store: no sample hooks, and what init and the lines below make is set
  // to 0600 files in 0700 folders (makePrivate). Files git writes later follow the umask (the index
  // 0644, objects 0444 in 0755 folders with the usual 022; the runtime's own objects 0400 in 0700,
  // treeObjects.ts): private all the same, as the shadow's folder and the store's checkpoints folder
  // above it are 0700, so no one else reaches them.
  await gitOk(dir, ['init', '-q', '--bare', '--', staging]);
  await fs.rm(path.join(staging, 'hooks'), { recursive: true, force: true });
  // The settings go into the config file `init` just wrote, not through a `git config` process each: a new
  // folder's first checkpoint waits on them. A not bare repository (every call names its work tree), no
  // line-ending conversion, and the stat cache of the untracked scan (later checkpoints skip folders whose
  // mtime did not change).
  const configFile = path.join(staging, 'config');
  const initial = await fs.readFile(configFile, 'utf8');
  await fs.writeFile(configFile, `${initial.replace(/^([ \t]*bare[ \t]*=[ \t]*)true[ \t]*$/m, '$1false')}[core]\n\tautocrlf = false\n\tuntrackedCache = true\n`);
  await fs.writeFile(path.join(staging, 'description'), `Fork Agents checkpoints of ${workTree}\n`);
  if (repo) {
    const common = path.resolve(real, (await gitOk(real, ['rev-parse', '--git-common-dir'])).trim());
    await fs.writeFile(path.join(staging, BORROWED_NAME), path.join(common, 'objects') + '\n');
    // The user's own exclusions count too (`.gitignore` files are read from the work tree anyway).
    // Safe to drop: no exclude file is the common case, and means no extra exclusions.
    const exclude = await fs.readFile(path.join(common, 'info', 'exclude')).catch(() => undefined);
    if (exclude) await fs.writeFile(path.join(staging, 'info', 'exclude'), exclude);
    // Seeded from the user's index: its tracked files (ignored or not) are in from the start, and its
    // stat cache means the first checkpoint hashes only what differs from it.
    // Safe to drop: without the user's index the first checkpoint only hashes more; the result is the same.
    await copyIndex(repo.indexFile, staging).catch(() => undefined);
  }
  await makePrivate(staging);
  await fs.rename(staging, gitDir).catch(async (error: NodeJS.ErrnoException) => {
    // Another runtime made it meanwhile: theirs is as good.
    await fs.rm(staging, { recursive: true, force: true });
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  });
  shadow.borrowed = await borrowedFrom(gitDir);
  return shadow;
}

/**
 * The user's objects folder a shadow reads, if any. A shadow made by an earlier version names it in
 * `objects/info/alternates`, which no call could leave out: it moves to the shadow's own file.
 */
export async function borrowedFrom(gitDir: string): Promise<string | undefined> {
  const file = path.join(gitDir, BORROWED_NAME);
  // Safe to drop: no file is a shadow of a plain folder (or one made before the file existed, below).
  const saved = (await fs.readFile(file, 'utf8').catch(() => '')).split('\n')[0];
  if (saved) return saved;
  const legacy = path.join(gitDir, 'objects', 'info', 'alternates');
  // Safe to drop: no alternates file, no borrowed objects.
  const old = (await fs.readFile(legacy, 'utf8').catch(() => '')).split('\n')[0];
  if (!old) return undefined;
  await fs.writeFile(`${file}.${process.pid}.tmp`, old + '\n', { mode: 0o600 });
  await fs.rename(`${file}.${process.pid}.tmp`, file);
  await fs.rm(legacy, { force: true });
  // Its index may name objects it borrowed that no kept tree copied (a checkpoint cut short): the next
  // checkpoint copies its whole tree once, as a new shadow's first does.
  await fs.rm(path.join(gitDir, KEPT_NAME), { force: true });
  return old;
}

/** The environment that lets git read the user's objects too; a path with `:` C-quoted (git(1), GIT_ALTERNATE_OBJECT_DIRECTORIES). */
export function borrowedEnv(borrowed: string | undefined): Record<string, string> {
  if (!borrowed) return {};
  const quoted = /[:"\\]/.test(borrowed) ? `"${borrowed.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : borrowed;
  return { GIT_ALTERNATE_OBJECT_DIRECTORIES: quoted };
}

/**
 * The user's index into the shadow. A split one (the user's core.splitIndex) names its shared part by id
 * in a `link` extension, a file git looks for beside the index: that file comes too, else no git call
 * could read the shadow's index.
 */
async function copyIndex(indexFile: string, gitDir: string): Promise<void> {
  const bytes = await fs.readFile(indexFile);
  // "link", a 4-byte size, then the shared index's id; a path that happens to hold "link" names no file.
  for (let at = bytes.indexOf('link'); at >= 0; at = bytes.indexOf('link', at + 1)) {
    const name = `sharedindex.${bytes.subarray(at + 8, at + 28).toString('hex')}`;
    const copied = await fs.copyFile(path.join(path.dirname(indexFile), name), path.join(gitDir, name)).then(() => true, () => false);
    if (copied) break;
  }
  await fs.writeFile(path.join(gitDir, 'index'), bytes);
}

/** What `git init` and the writes above made: folders 0700, files 0600, whatever the umask. */
async function makePrivate(dir: string): Promise<void> {
  await fs.chmod(dir, 0o700);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await makePrivate(full);
    else if (entry.isFile()) await fs.chmod(full, 0o600);
  }
}

/** Removes a shadow repository, after any work on it, and forgets it: the next use makes it afresh. */
export async function removeShadow(gitDir: string): Promise<void> {
  const open = [...opened.entries()];
  for (const [key, shadow] of open) {
    // Safe to drop: a shadow that failed to open was reported where it was opened, and has nothing to remove.
    const repo = await shadow.catch(() => undefined);
    if (repo?.gitDir !== gitDir) continue;
    opened.delete(key);
    repo.watcher?.close();
    repo.treeTurn?.close();
    await serialized(repo, () => fs.rm(gitDir, { recursive: true, force: true }));
  }
  await fs.rm(gitDir, { recursive: true, force: true });
}

/** git in the shadow repository, over its work tree, with its private index. */
export function shadowGit(shadow: ShadowRepo, args: string[], options: ShadowGitOptions = {}): Promise<GitResult> {
  return git(shadow.workTree, shadowArgs(shadow, args), shadowOptions(shadow, options));
}

export async function shadowGitOk(shadow: ShadowRepo, args: string[], options: ShadowGitOptions = {}): Promise<string> {
  return gitOk(shadow.workTree, shadowArgs(shadow, args), shadowOptions(shadow, options));
}

/**
 * Like shadowGitOk, for output that names files: decoded so that every name keeps its bytes
 * (pathBytes.ts), with `-z` output's NULs where they were.
 */
export async function shadowGitNames(shadow: ShadowRepo, args: string[], options: ShadowGitOptions = {}): Promise<string> {
  const result = await shadowGitBytes(shadow, args, options);
  if (result.code !== 0) throw new GitError(args, result);
  return nameOf(result.stdout);
}

/** git in the shadow with stdout as bytes, whatever the exit code. */
export function shadowGitBytes(shadow: ShadowRepo, args: string[], options: ShadowGitOptions = {}): Promise<GitBytesResult> {
  return gitBytes(shadow.workTree, shadowArgs(shadow, args), shadowOptions(shadow, options));
}

export function shadowArgs(shadow: ShadowRepo, args: string[]): string[] {
  return [`--git-dir=${shadow.gitDir}`, `--work-tree=${shadow.workTree}`, ...args];
}

export function shadowOptions(shadow: ShadowRepo, options: ShadowGitOptions = {}): GitOptions {
  const { ownObjects, ...rest } = options;
  return { ...rest, env: { GIT_INDEX_FILE: shadow.indexFile, ...(ownObjects ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: '' } : borrowedEnv(shadow.borrowed)), ...options.env } };
}

/** Runs `work` after every earlier piece of work on this shadow: one index, one writer at a time. */
export function serialized<T>(shadow: ShadowRepo, work: () => Promise<T>): Promise<T> {
  const before = queues.get(shadow.gitDir) ?? Promise.resolve();
  const next = before.then(work, work);
  // The queue only orders the work: its error reaches the caller through `next`.
  const settled = next.then(() => undefined, () => undefined);
  queues.set(shadow.gitDir, settled);
  void settled.then(() => {
    if (queues.get(shadow.gitDir) === settled) queues.delete(shadow.gitDir);
  });
  return next;
}
