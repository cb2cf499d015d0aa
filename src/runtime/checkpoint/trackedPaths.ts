// The shadow index's file paths, kept in memory between checkpoints, so a checkpoint whose watched paths
// are all files the index has (the usual turn: edits) or new plain files needs no `ls-files`: that call
// parses the whole index and matches every entry against every path asked about, the one part of a
// checkpoint that grew with the repository (docs/design.md, "Checkpoints"; docs/benchmarks.md). New
// files still need git's ignore rules: `check-ignore --no-index`, which reads no index. Anything else —
// a folder, a symlink or other non-file that is new, a new file that git ignores (it might be one the
// index has after all), a path under a tracked file or inside a nested repository's folder — goes to the
// `ls-files` over the watched paths, as without this list.
//
// The list is the index's only while nothing else writes the index: it is read again (`ls-files -c`)
// whenever the index file is not the one the last checkpoint wrote (another runtime on the same store, a
// new runtime), and dropped after every checkpoint that did not use it.
import { promises as fs } from 'node:fs';
import type { Stats } from 'node:fs';
import * as path from 'node:path';
import { shadowGit, shadowGitNames } from './shadowRepo';
import { fsPath, isDotGit, nulList } from './pathBytes';
import type { ShadowRepo } from './shadowRepo';

export interface TrackedPaths {
  /** Every path of the index (files, symlinks, submodules). */
  files: Set<string>;
  /** Every folder with an index entry under it. */
  folders: Set<string>;
  /** The index file this list is true of (inode, size, mtime); another means another writer. */
  indexId: string;
}

/** What `ls-files -c -o` over the watched paths would have listed, from the in-memory list. */
export interface QuickListing {
  paths: string[];
  tracked: Set<string>;
}

const lstat = (file: string) => fs.lstat(fsPath(file)).catch(() => undefined);

/** The index file's identity (inode, size, mtime): another one means another writer. */
export async function indexId(shadow: ShadowRepo): Promise<string | undefined> {
  const stat = await lstat(shadow.indexFile);
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : undefined;
}

/** The list, read afresh when the index is not the one it was made from. */
async function trackedPaths(shadow: ShadowRepo): Promise<TrackedPaths | undefined> {
  const id = await indexId(shadow);
  if (id === undefined) return undefined;
  if (shadow.tracked?.indexId === id) return shadow.tracked;
  // Read before the listing: a write meanwhile makes the id differ next time, so the list is read again.
  const files = new Set((await shadowGitNames(shadow, ['ls-files', '-c', '-z'])).split('\0').filter(Boolean));
  const folders = new Set<string>();
  for (const file of files) addFolders(folders, file);
  shadow.tracked = { files, folders, indexId: id };
  return shadow.tracked;
}

function addFolders(folders: Set<string>, file: string): void {
  for (let dir = path.posix.dirname(file); dir !== '.' && !folders.has(dir); dir = path.posix.dirname(dir)) folders.add(dir);
}

function parents(rel: string): string[] {
  const out: string[] = [];
  for (let dir = path.posix.dirname(rel); dir !== '.'; dir = path.posix.dirname(dir)) out.push(dir);
  return out;
}

/**
 * The watched paths sorted as `ls-files -c -o --exclude-standard` would: index entries (any kind on disk
 * but a folder) and new, not ignored plain files. Undefined when a path needs git's own listing.
 */
export async function quickListing(shadow: ShadowRepo, scope: readonly string[], touched: readonly string[]): Promise<QuickListing | undefined> {
  const list = await trackedPaths(shadow);
  if (!list) return undefined;
  const stats = new Map<string, Stats | undefined>();
  await Promise.all(scope.map(async rel => stats.set(rel, await lstat(path.join(shadow.workTree, rel)))));
  const paths: string[] = [];
  const tracked = new Set<string>();
  const fresh: string[] = [];
  for (const rel of scope) {
    const stat = stats.get(rel);
    if (list.files.has(rel)) {
      // A tracked file now a folder (or a submodule's folder): its entries change shape; git sorts that out.
      if (stat?.isDirectory()) return undefined;
      paths.push(rel);
      tracked.add(rel);
      continue;
    }
    // A folder the index has files under (removed or moved, most likely): its entries are git's to list.
    if (list.folders.has(rel)) return undefined;
    // Made and removed between two checkpoints, or never tracked and now gone: nothing to record.
    if (!stat) continue;
    if (!stat.isFile() || parents(rel).some(dir => list.files.has(dir))) return undefined;
    // A repository's own folder is never a file of ours (`ls-files -o` stops at a nested `.git` too), nor
    // a `.GIT` of any case, which git never records (pathBytes.ts).
    if (rel.split('/').some(isDotGit)) continue;
    fresh.push(rel);
  }
  for (const rel of touched) {
    // A tool's file where the index has a folder, or under a tracked file: `--replace` drops entries.
    if (list.folders.has(rel) || parents(rel).some(dir => list.files.has(dir))) return undefined;
    if (list.files.has(rel)) tracked.add(rel);
  }
  if (fresh.length > 0) {
    const inNested = await Promise.all(fresh.map(rel => inNestedRepo(shadow, list, rel)));
    const outside = fresh.filter((_, i) => !inNested[i]);
    if (outside.length > 0) {
      const result = await shadowGit(shadow, ['check-ignore', '--no-index', '-z', '--stdin'], { input: nulList(outside) });
      // 1: none ignored. 0: some are, and an ignored file may still be in the index (tracked once, ignored
      // since) with the list behind: only git's listing knows; rare, as ignored folders are not watched.
      // Anything else is an error: git's listing then too.
      if (result.code !== 1) return undefined;
      paths.push(...outside);
    }
  }
  return { paths, tracked };
}

/** Whether a folder above `rel` that the index has nothing under holds a repository of its own. */
async function inNestedRepo(shadow: ShadowRepo, list: TrackedPaths, rel: string): Promise<boolean> {
  const untracked = parents(rel).filter(dir => !list.folders.has(dir));
  const found = await Promise.all(untracked.map(dir => lstat(path.join(shadow.workTree, dir, '.git'))));
  return found.some(Boolean);
}

/**
 * After `update-index` of `updated` (each either there and now in the index, or gone and removed) and the
 * force-removal of `dropped`, with the index written since: the list follows, and is of the new index.
 * Called under the index lock (indexLock.ts), as the listing it follows was.
 */
export async function followWrite(shadow: ShadowRepo, updated: readonly string[], dropped: readonly string[], present: ReadonlySet<string>): Promise<void> {
  const list = shadow.tracked;
  if (!list) return;
  for (const rel of updated) {
    if (present.has(rel)) {
      list.files.add(rel);
      addFolders(list.folders, rel);
    } else {
      // Folders left without files stay listed: that only sends a later path there to git's listing.
      list.files.delete(rel);
    }
  }
  for (const rel of dropped) list.files.delete(rel);
  // Read after the write, and still ours: the checkpoint holds the index lock from the list's check to
  // here, so no other runtime on the store writes the index in between (indexLock.ts).
  const id = await indexId(shadow);
  if (id === undefined) shadow.tracked = undefined;
  else list.indexId = id;
}

/** A checkpoint that listed through git: the list is read again when next needed. */
export function forgetTracked(shadow: ShadowRepo): void {
  shadow.tracked = undefined;
}
