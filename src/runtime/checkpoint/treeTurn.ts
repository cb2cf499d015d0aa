// The index-free checkpoint: the new tree is the previous checkpoint's with the watcher's paths (and the
// tools' files) replaced — only those files hashed (one long-lived `hash-object -w --stdin-paths`, so
// clean filters and attributes apply as in `update-index`), only the trees of the folders they are in
// written (by the runtime, treeObjects.ts), every other subtree reused by id. No git process reads the
// shadow's index, whose size grows with the repository, and none re-hashes files of the same second as
// the index (racy entries: docs/benchmarks.md): a turn costs what it changed (docs/design.md, "Checkpoints").
//
// Whatever this cannot answer as `update-index` + `write-tree` would — a submodule, a path in a nested
// repository that the tree has, a `.gitignore` or `.gitattributes` changed (the long-lived processes
// read those once), a fifo, a name git's line protocol cannot carry, more than a walk's worth of new
// files — returns undefined and the checkpoint goes through the index as before (takeCheckpoint.ts),
// which first brings the index to the last tree (`read-tree -m`, stat data kept where the blob is the same).
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import * as path from 'node:path';
import type { LargeFileRef } from '../session/records';
import { borrowedEnv, shadowGit } from './shadowRepo';
import type { ShadowRepo } from './shadowRepo';
import { catFileObject, fields, GitBatch, lines } from './gitBatch';
import { GITLINK_MODE, parseTree, serializeTree, SYMLINK_MODE, TREE_MODE, writeObject } from './treeObjects';
import type { TreeEntry } from './treeObjects';
import { bytesOf, fsPath, isDotGit, mayBeDotGit, nameOf } from './pathBytes';

/** Files one checkpoint may find by walking new or re-made folders; past it, git's own listing does better. */
const MAX_WALKED = 2_000;
/** Trees kept in memory by id between checkpoints; past it the cache starts again. */
const MAX_CACHED_TREES = 20_000;
/** Files whose change makes the long-lived processes' view of ignore rules and attributes stale. */
const RULE_FILES = new Set(['.gitignore', '.gitattributes']);

export interface TreeTurnState {
  hash: GitBatch;
  cat: GitBatch;
  ignore: GitBatch;
  /** Tree objects by id (immutable, so never stale). */
  trees: Map<string, Map<string, TreeEntry>>;
  /** Object folders known to exist. */
  madeDirs: Set<string>;
  /** core.symlinks: false means git records links as plain files, which this path does not do. */
  symlinks?: boolean;
  /** Ends the processes (they start again at the next use). */
  close(): void;
}

function closeTreeTurn(shadow: ShadowRepo): void {
  shadow.treeTurn?.close();
}

function stateOf(shadow: ShadowRepo): TreeTurnState {
  if (shadow.treeTurn) return shadow.treeTurn;
  const base = [`--git-dir=${shadow.gitDir}`, `--work-tree=${shadow.workTree}`];
  const index = { GIT_INDEX_FILE: shadow.indexFile };
  const state: TreeTurnState = {
    // Written with the user's objects out of view, so every blob lands in the shadow (keepObjects.ts).
    hash: new GitBatch(shadow.workTree, [...base, 'hash-object', '-w', '--stdin-paths'], () => ({ ...index, GIT_ALTERNATE_OBJECT_DIRECTORIES: '' })),
    cat: new GitBatch(shadow.workTree, [...base, 'cat-file', '--batch'], () => ({ ...index, ...borrowedEnv(shadow.borrowed) })),
    ignore: new GitBatch(shadow.workTree, [...base, 'check-ignore', '--no-index', '-z', '-v', '-n', '--stdin'], () => index),
    trees: new Map(),
    madeDirs: new Set(),
    close: () => {
      state.hash.close();
      state.cat.close();
      state.ignore.close();
    },
  };
  shadow.treeTurn = state;
  return state;
}

class Fallback extends Error {}

/** What a path is in the previous tree. */
type Before = { kind: 'none' } | { kind: 'entry'; entry: TreeEntry };

/** A path's state now, as the checkpoint records it. */
interface Leaf { rel: string; stat: Stats; before: Before }

export interface TreeTurnResult { tree: string; large: LargeFileRef[] }

/**
 * The checkpoint of `paths` (the watcher's and the tools' `touched`) on top of `shadow.lastTree`, or
 * undefined when git's own listing has to answer. `previousLarge`: the files kept by reference that none
 * of `paths` covers.
 */
export async function treeTurn(shadow: ShadowRepo, paths: readonly string[], touched: ReadonlySet<string>, previousLarge: LargeFileRef[], limits: { largeBytes: number; newFiles: number; newBytes: number }): Promise<TreeTurnResult | undefined> {
  const root = shadow.lastTree;
  if (!root || !/^[0-9a-f]{40}$/.test(root)) return undefined;
  const state = stateOf(shadow);
  if (paths.some(rel => RULE_FILES.has(path.posix.basename(rel)))) {
    // Read again by the next processes; this checkpoint goes through git's listing.
    closeTreeTurn(shadow);
    shadow.treeTurn = undefined;
    return undefined;
  }
  try {
    if (state.symlinks === undefined) state.symlinks = await symlinksOn(shadow);
    if (!state.symlinks) return undefined;
    return await build(shadow, state, root, paths, touched, previousLarge, limits);
  } catch (error) {
    if (error instanceof Fallback) return undefined;
    throw error;
  }
}

/** core.symlinks as git reads it (the shadow's config, then global and system). */
async function symlinksOn(shadow: ShadowRepo): Promise<boolean> {
  const result = await shadowGit(shadow, ['config', '--type=bool', '--get', 'core.symlinks']);
  return result.code !== 0 || result.stdout.trim() !== 'false';
}

async function build(shadow: ShadowRepo, state: TreeTurnState, root: string, paths: readonly string[], touched: ReadonlySet<string>, previousLarge: LargeFileRef[], limits: { largeBytes: number; newFiles: number; newBytes: number }): Promise<TreeTurnResult> {
  const tree = async (id: string): Promise<Map<string, TreeEntry>> => {
    const cached = state.trees.get(id);
    if (cached) return cached;
    const object = await state.cat.request(`${id}\n`, catFileObject);
    if (object?.type !== 'tree') throw new Fallback();
    const entries = parseTree(object.content);
    if (state.trees.size >= MAX_CACHED_TREES) state.trees.clear();
    state.trees.set(id, entries);
    return entries;
  };
  /** What `rel` was in the previous tree; a submodule on the way means git's listing. */
  const before = async (rel: string): Promise<Before> => {
    let entries = await tree(root);
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const entry = entries.get(parts[i]);
      if (!entry) return { kind: 'none' };
      if (entry.mode === GITLINK_MODE) throw new Fallback();
      if (i === parts.length - 1) return { kind: 'entry', entry };
      // A file then, a folder's path now: the file's place is taken by the folder.
      if (entry.mode !== TREE_MODE) return { kind: 'none' };
      entries = await tree(entry.id);
    }
    return { kind: 'none' };
  };

  // 1. What each path is now, against the previous tree. Paths sorted: a folder comes before its files.
  const removals = new Set<string>();
  const leaves: Leaf[] = [];
  let walked = 0;
  const sorted = [...new Set(paths)].filter(rel => rel !== '' && !rel.endsWith('/') && !rel.split('/').includes('..')).sort();
  for (const rel of sorted) {
    // Never in a tree git would read back (pathBytes.ts); a name git may refuse by its settings is its to decide.
    if (rel.split('/').some(isDotGit)) continue;
    if (rel.split('/').some(mayBeDotGit)) throw new Fallback();
    const was = await before(rel);
    const stat = await lstat(path.join(shadow.workTree, rel));
    if (!stat) {
      if (was.kind === 'entry') removals.add(rel);
      continue;
    }
    if (stat.isFile() || stat.isSymbolicLink()) {
      if (was.kind === 'none' && (await inNestedRepo(shadow, rel, before))) continue;
      leaves.push({ rel, stat, before: was });
      continue;
    }
    if (!stat.isDirectory()) throw new Fallback();
    // A folder (new, moved in, or a file turned into one): its content replaces whatever was there.
    if (await lstat(path.join(shadow.workTree, rel, '.git'))) {
      // A repository of its own: never files of ours, unless the tree has them (git's listing decides).
      if (was.kind === 'entry') throw new Fallback();
      continue;
    }
    if (was.kind === 'none' && (await inNestedRepo(shadow, rel, before))) continue;
    if (was.kind === 'entry') removals.add(rel);
    for (const file of await walk(shadow.workTree, rel)) {
      if (++walked > MAX_WALKED) throw new Fallback();
      leaves.push({ rel: file.rel, stat: file.stat, before: await before(file.rel) });
    }
  }

  // 2. New files follow the ignore rules; the tools' files and those the tree has are recorded anyway.
  const unique = new Map(leaves.map(leaf => [leaf.rel, leaf]));
  const askIgnore = [...unique.values()].filter(leaf => leaf.before.kind === 'none' && !touched.has(leaf.rel)).map(leaf => leaf.rel);
  const ignored = await ignoredOf(state, askIgnore);
  const kept = [...unique.values()].filter(leaf => !ignored.has(leaf.rel));
  let newCount = 0;
  let newBytes = 0;
  for (const leaf of kept) {
    if (leaf.before.kind === 'none') {
      newCount++;
      newBytes += leaf.stat.size;
    }
  }
  if (newCount > limits.newFiles || newBytes > limits.newBytes) throw new Fallback();

  // 3. Blobs: files through git (filters), links by their target; large files by reference.
  const large: LargeFileRef[] = [...previousLarge];
  const madeDirs = state.madeDirs;
  const sets = new Map<string, TreeEntry>();
  const files: Leaf[] = [];
  for (const leaf of kept) {
    if (leaf.stat.isFile() && leaf.stat.size > limits.largeBytes) {
      large.push({ path: leaf.rel, size: leaf.stat.size, mtimeMs: Math.trunc(leaf.stat.mtimeMs) });
      removals.add(leaf.rel);
    } else if (leaf.stat.isSymbolicLink()) {
      const target = fs.readlinkSync(fsPath(path.join(shadow.workTree, leaf.rel)), { encoding: 'buffer' });
      sets.set(leaf.rel, { mode: SYMLINK_MODE, id: writeObject(shadow.gitDir, 'blob', target, madeDirs) });
    } else {
      // hash-object reads a line a path, and unquotes one that starts with `"`.
      if (leaf.rel.includes('\n') || leaf.rel.startsWith('"')) throw new Fallback();
      files.push(leaf);
    }
  }
  if (files.length > 0) {
    // A file gone meanwhile ends the process (git cannot hash it): git's listing then.
    const ids = await state.hash.request(bytesOf(files.map(leaf => `${leaf.rel}\n`).join('')), lines(files.length)).catch(() => {
      throw new Fallback();
    });
    files.forEach((leaf, i) => {
      if (!/^[0-9a-f]{40}$/.test(ids[i])) throw new Fallback();
      // git's mode for a file: executable when its owner may run it (core.fileMode, on in the shadow).
      sets.set(leaf.rel, { mode: leaf.stat.mode & 0o100 ? '100755' : '100644', id: ids[i] });
    });
  }

  // 4. The changed folders' trees, deepest first; a folder left empty goes from its parent.
  const work = new Map<string, Map<string, TreeEntry>>();
  const entriesAt = async (dir: string): Promise<Map<string, TreeEntry> | undefined> => {
    const open = work.get(dir);
    if (open) return open;
    if (dir === '') {
      const copy = new Map(await tree(root));
      work.set('', copy);
      return copy;
    }
    const parent = await entriesAt(path.posix.dirname(dir) === '.' ? '' : path.posix.dirname(dir));
    const entry = parent?.get(path.posix.basename(dir));
    if (!parent || entry?.mode !== TREE_MODE) return undefined;
    const copy = new Map(await tree(entry.id));
    work.set(dir, copy);
    return copy;
  };
  const parentOf = (rel: string) => (path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel));
  for (const rel of removals) {
    const parent = await entriesAt(parentOf(rel));
    parent?.delete(path.posix.basename(rel));
    for (const key of [...work.keys()]) if (key === rel || key.startsWith(`${rel}/`)) work.delete(key);
  }
  for (const [rel, entry] of [...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parts = rel.split('/');
    let dir = '';
    for (let i = 0; i < parts.length - 1; i++) {
      const sub = dir === '' ? parts[i] : `${dir}/${parts[i]}`;
      const holder = (await entriesAt(dir))!;
      const existing = holder.get(parts[i]);
      if (existing?.mode !== TREE_MODE) {
        // A folder where there was none (or a file): a new, empty tree to fill.
        holder.set(parts[i], { mode: TREE_MODE, id: '' });
        for (const key of [...work.keys()]) if (key === sub || key.startsWith(`${sub}/`)) work.delete(key);
        work.set(sub, new Map());
      }
      dir = sub;
    }
    const holder = (await entriesAt(dir))!;
    const name = parts[parts.length - 1];
    if (holder.get(name)?.mode === TREE_MODE) for (const key of [...work.keys()]) if (key === rel || key.startsWith(`${rel}/`)) work.delete(key);
    holder.set(name, entry);
  }
  const depth = (dir: string) => (dir === '' ? 0 : dir.split('/').length);
  let newRoot = root;
  for (const dir of [...work.keys()].sort((a, b) => depth(b) - depth(a))) {
    const entries = work.get(dir)!;
    const parent = dir === '' ? undefined : work.get(parentOf(dir)) ?? (await entriesAt(parentOf(dir)));
    const name = path.posix.basename(dir);
    if (entries.size === 0 && parent) {
      parent.delete(name);
      continue;
    }
    const id = writeObject(shadow.gitDir, 'tree', serializeTree(entries), madeDirs);
    state.trees.set(id, entries);
    if (parent) parent.set(name, { mode: TREE_MODE, id });
    else newRoot = id;
  }
  large.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { tree: newRoot, large };
}

/** Which of `rels` git ignores (`check-ignore -v -n`: four fields a path, the first empty when not ignored). */
async function ignoredOf(state: TreeTurnState, rels: string[]): Promise<Set<string>> {
  if (rels.length === 0) return new Set();
  const answer = await state.ignore.request(bytesOf(rels.map(rel => `${rel}\0`).join('')), fields(rels.length * 4)).catch(() => {
    throw new Fallback();
  });
  const ignored = new Set<string>();
  for (let i = 0; i < rels.length; i++) {
    if (answer[i * 4 + 3] !== rels[i]) throw new Fallback();
    if (answer[i * 4] !== '') ignored.add(rels[i]);
  }
  return ignored;
}

/** Whether a folder above `rel` that the previous tree does not have holds a repository of its own. */
async function inNestedRepo(shadow: ShadowRepo, rel: string, before: (rel: string) => Promise<Before>): Promise<boolean> {
  for (let dir = path.posix.dirname(rel); dir !== '.'; dir = path.posix.dirname(dir)) {
    const was = await before(dir);
    if (was.kind === 'entry' && was.entry.mode === TREE_MODE) return false;
    if (await lstat(path.join(shadow.workTree, dir, '.git'))) return true;
  }
  return false;
}

/** Files and links under `rel`, not going into `.git` or into folders that hold a repository. */
async function walk(workTree: string, rel: string): Promise<{ rel: string; stat: Stats }[]> {
  const out: { rel: string; stat: Stats }[] = [];
  const visit = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = fs.readdirSync(fsPath(path.join(workTree, dir)), { encoding: 'buffer' }).map(nameOf);
    } catch {
      // A folder gone meanwhile has nothing to record (its removal is a notice of its own).
      names = [];
    }
    if (dir !== rel && names.includes('.git')) return;
    for (const name of names) {
      if (isDotGit(name)) continue;
      if (mayBeDotGit(name)) throw new Fallback();
      const child = `${dir}/${name}`;
      const stat = await lstat(path.join(workTree, child));
      if (!stat) continue;
      if (stat.isDirectory()) await visit(child);
      else if (stat.isFile() || stat.isSymbolicLink()) out.push({ rel: child, stat });
      else throw new Fallback();
      if (out.length > MAX_WALKED) throw new Fallback();
    }
  };
  await visit(rel);
  return out;
}

/**
 * Synchronous, as the watcher's own calls: a turn stats tens of paths, and each asynchronous call costs a
 * thread-pool round trip (and a missing path an Error) — more than the stat itself.
 */
const lstat = async (file: string): Promise<Stats | undefined> => {
  try {
    return fs.lstatSync(fsPath(file), { throwIfNoEntry: false });
  } catch {
    // Not there either: a path under what is a file now (ENOTDIR), or unreadable.
    return undefined;
  }
};
