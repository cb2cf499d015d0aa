// Checkpoints keep their own objects. The shadow reads the user's objects as alternates, so a tree
// whose blobs git found already in the user's repository (the files as committed, staged or as some
// commit had them) would hold no copy of them. The user's repository knows nothing of our trees: after a
// rebase, an expired reflog and `git gc --prune=now`, those objects are gone and the checkpoint with them.
// So the first tree of a shadow (its index seeded from the user's, whose entries name the user's blobs)
// has every object it needs that the shadow lacks packed into the shadow's own store (`pack-objects`
// without `--local` copies borrowed objects too). Every later checkpoint writes with the user's objects
// out of view (takeCheckpoint.ts), so whatever it needs and the shadow lacks is written into the shadow:
// after the first tree nothing is left to copy, and no git runs for it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KEPT_NAME, shadowGit, shadowGitOk } from './shadowRepo';
import type { ShadowRepo } from './shadowRepo';
import type { GitOptions } from '../git/run';

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
 * last call kept. Once one tree is kept, a later one has nothing borrowed (see above): it is only noted.
 */
export async function keepObjects(shadow: ShadowRepo, tree: string): Promise<'kept' | 'whole-tree-needed'> {
  const kept = await keptTree(shadow);
  if (kept === tree) return 'kept';
  // One this runtime kept itself is there (a sweep keeps recent trees, a removed shadow is forgotten);
  // one read from the file may have been swept.
  const usable = kept !== undefined && (kept === shadow.keptTree || (await objectGit(shadow, ['cat-file', '-e', `${kept}^{tree}`])).code === 0);
  if (!usable) return 'whole-tree-needed';
  await noteKept(shadow, tree);
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
  await noteKept(shadow, tree);
}

async function noteKept(shadow: ShadowRepo, tree: string): Promise<void> {
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
  await noteKept(shadow, tree);
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

async function allOf(shadow: ShadowRepo, tree: string): Promise<Set<string>> {
  const listing = await objectGitOk(shadow, ['ls-tree', '-r', '-t', '-z', tree], { timeoutMs: KEEP_TIMEOUT_MS });
  const ids = new Set<string>();
  for (const line of listing.split('\0')) {
    const [, type, id] = line.split('\t')[0].split(' ');
    if (type === 'blob' || type === 'tree') ids.add(id);
  }
  return ids;
}
