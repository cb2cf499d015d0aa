// Checkpoints keep their own objects. The shadow reads the user's objects through alternates, so a tree
// whose blobs git found already in the user's repository (the files as committed, staged or as some
// commit had them) holds no copy of them. The user's repository knows nothing of our trees: after a
// rebase, an expired reflog and `git gc --prune=now`, those objects are gone and the checkpoint with them.
// So every object a checkpoint needs that is not a loose object of the shadow's own is packed into the
// shadow's own object store (`pack-objects` without `--local` copies borrowed objects too): the whole
// first tree once, then per checkpoint only what differs from the last kept tree.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { shadowGit, shadowGitOk } from './shadowRepo';
import type { ShadowRepo } from './shadowRepo';
import type { GitOptions } from '../git/run';

const KEPT_NAME = 'fork-agents-kept';
const KEEP_TIMEOUT_MS = 10 * 60_000;

/** The last tree whose objects are all in the shadow's own store (remembered across runtimes). */
async function keptTree(shadow: ShadowRepo): Promise<string | undefined> {
  if (shadow.keptTree) return shadow.keptTree;
  // Safe to drop: no file means nothing kept yet; the next keep packs the whole tree.
  const saved = (await fs.readFile(path.join(shadow.gitDir, KEPT_NAME), 'utf8').catch(() => '')).trim();
  return /^[0-9a-f]{40,64}$/.test(saved) ? saved : undefined;
}

/**
 * Makes the shadow hold every object of `tree` itself. Call inside `serialized`: it reads the tree the
 * last call kept. Cheap when a turn changed few files: the objects that are new since the kept tree are
 * listed by one diff-tree, and those git just wrote (loose in the shadow) need no copy.
 */
export async function keepObjects(shadow: ShadowRepo, tree: string): Promise<'kept' | 'whole-tree-needed'> {
  const kept = await keptTree(shadow);
  if (kept === tree) return 'kept';
  // One this runtime kept itself is there (a sweep keeps recent trees, a removed shadow is forgotten);
  // one read from the file may have been swept.
  const usable = kept !== undefined && (kept === shadow.keptTree || (await objectGit(shadow, ['cat-file', '-e', `${kept}^{tree}`])).code === 0);
  if (!usable) return 'whole-tree-needed';
  await pack(shadow, tree, await newSince(shadow, kept, tree));
  return 'kept';
}

/** The whole of `tree` into the shadow's own store: once per shadow (or after its kept tree was swept). */
export async function keepWholeTree(shadow: ShadowRepo, tree: string): Promise<void> {
  await pack(shadow, tree, await allOf(shadow, tree));
}

/**
 * Takes `tree` as kept without copying it: a fork's worktree starts at its base commit, which its
 * branch keeps reachable in the user's repository; what the fork changes after is copied as usual.
 */
export async function assumeKept(shadow: ShadowRepo, tree: string): Promise<void> {
  await fs.writeFile(path.join(shadow.gitDir, KEPT_NAME), `${tree}\n`, { mode: 0o600 });
  shadow.keptTree = tree;
}

async function pack(shadow: ShadowRepo, tree: string, ids: Set<string>): Promise<void> {
  ids.add(tree);
  const toPack: string[] = [];
  await Promise.all([...ids].map(async id => {
    if (!(await isOwnLoose(shadow, id))) toPack.push(id);
  }));
  if (toPack.length > 0) {
    // Into the shadow's own pack folder, whatever the alternates already have.
    await objectGitOk(shadow, ['pack-objects', '-q', path.join(shadow.gitDir, 'objects', 'pack', 'pack')], { input: toPack.join('\n') + '\n', timeoutMs: KEEP_TIMEOUT_MS });
  }
  await fs.writeFile(path.join(shadow.gitDir, KEPT_NAME), `${tree}\n`, { mode: 0o600 });
  shadow.keptTree = tree;
}

/**
 * git over the shadow's objects alone. diff-tree reads the index when there is one (for attributes), which
 * costs a parse of every entry; a path that does not exist is an empty index.
 */
function noIndex(shadow: ShadowRepo): Record<string, string> {
  // A name nothing writes (only these read-only calls name it).
  return { GIT_INDEX_FILE: path.join(shadow.gitDir, 'no-index') };
}
function objectGit(shadow: ShadowRepo, args: string[]): ReturnType<typeof shadowGit> {
  return shadowGit(shadow, args, { env: noIndex(shadow) });
}
function objectGitOk(shadow: ShadowRepo, args: string[], options: GitOptions = {}): Promise<string> {
  return shadowGitOk(shadow, args, { ...options, env: noIndex(shadow) });
}

async function isOwnLoose(shadow: ShadowRepo, id: string): Promise<boolean> {
  // Safe to drop: a missing file only means "not loose here"; the object is packed then (a copy at worst).
  return fs.access(path.join(shadow.gitDir, 'objects', id.slice(0, 2), id.slice(2))).then(() => true, () => false);
}

/** Blobs and trees on the new side of what differs from `from` to `to` (submodule commits are not ours). */
async function newSince(shadow: ShadowRepo, from: string, to: string): Promise<Set<string>> {
  const raw = await objectGitOk(shadow, ['diff-tree', '-r', '-t', '-z', '--no-renames', from, to], { timeoutMs: KEEP_TIMEOUT_MS });
  const ids = new Set<string>();
  const fields = raw.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (!fields[i].startsWith(':')) continue;
    const [, newMode, , newId] = fields[i].slice(1).split(' ');
    if (newMode !== '160000' && !/^0+$/.test(newId)) ids.add(newId);
  }
  return ids;
}

async function allOf(shadow: ShadowRepo, tree: string): Promise<Set<string>> {
  const listing = await objectGitOk(shadow, ['ls-tree', '-r', '-t', '-z', tree], { timeoutMs: KEEP_TIMEOUT_MS });
  const ids = new Set<string>();
  for (const line of listing.split('\0')) {
    const [, type, id] = line.split('\t')[0].split(' ');
    if (type === 'blob' || type === 'tree') ids.add(id);
  }
  return ids;
}
