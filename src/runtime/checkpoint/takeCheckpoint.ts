// One checkpoint: the work tree's state — tracked files, untracked files that are not ignored, and every
// file a tool touched (ignored or not) — as a tree in the shadow repository. Which paths changed since
// the last checkpoint comes from the shadow's watcher (changeWatcher.ts), and a checkpoint with nothing
// changed runs no git at all. The usual turn then needs no index (treeTurn.ts): the changed files are
// hashed by a long-lived git, the trees of their folders rebuilt from the last checkpoint's, the rest
// reused by id, so the cost follows the changed files, not the repository's size (`npm run bench`,
// section checkpoints; docs/benchmarks.md). Anything that path cannot answer, and every checkpoint
// without a trusted watcher (the first of a runtime, a flood of notices), goes through the shadow's
// index, which persists between checkpoints so git hashes only the files whose stat data changed:
// first brought to the last tree when index-free turns ran since (`read-tree -m`, stat data kept),
// then asked about the watcher's paths — sorted from the index's paths kept in memory when they are
// edits and new plain files (trackedPaths.ts), else `ls-files -c -o` over them, never `-m`/`-d`, which
// stat every file of the index whatever the pathspec — or about everything; written in split mode.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CheckpointRecord, LargeFileRef } from '../session/records';
import { serialized, shadowGit, shadowGitNames, shadowGitOk } from './shadowRepo';
import { fsPath, hasRawBytes, isDotGit, nulList } from './pathBytes';
import { noteTree } from './sweepCheckpoints';
import { assumeKept, keepObjects, keepWholeTree } from './keepObjects';
import { ChangeWatcher, MAX_WATCHED_FOLDERS } from './changeWatcher';
import { followWrite, forgetTracked, indexId, quickListing } from './trackedPaths';
import { IndexLockBusy, withIndexLock } from './indexLock';
import { log } from '../log';
import { treeTurn } from './treeTurn';
import type { ShadowRepo } from './shadowRepo';

/**
 * Files above this size are kept by reference (path, size, modification time), never hashed or copied:
 * a rewind leaves them as they are and says so.
 */
export const LARGE_FILE_BYTES = 32 * 1024 * 1024;
/** A folder with more untracked content than this to record (a home folder opened by mistake) gets no checkpoint. */
export const MAX_NEW_BYTES = 1024 * 1024 * 1024;
export const MAX_NEW_FILES = 100_000;
const CHECKPOINT_TIMEOUT_MS = 5 * 60_000;

export type CheckpointKind = CheckpointRecord['kind'];

export class CheckpointSkipped extends Error {}

/**
 * The shadow's state tree for its work tree now. `touched`: paths (relative to the work tree) tools wrote,
 * recorded even when ignored; once in the shadow's index a path stays there, so later checkpoints follow it.
 */
export function takeCheckpoint(shadow: ShadowRepo, touched: readonly string[] = []): Promise<{ tree: string; large: LargeFileRef[] }> {
  return serialized(shadow, async () => {
    const known = await knownChanges(shadow);
    // Only what changed since the last checkpoint is asked about when the watcher knows it; the same
    // question of git either way, so ignored, deleted and untracked files are treated alike.
    const changed = known === undefined ? undefined : [...known];
    if (changed !== undefined && changed.length + touched.length === 0 && shadow.lastTree !== undefined) {
      // Nothing changed since the last checkpoint: the same tree, no git (and the index left as it is).
      await noteTree(shadow.gitDir, shadow.lastTree);
      shadow.lastLarge ??= [];
      return { tree: shadow.lastTree, large: [...shadow.lastLarge] };
    }
    if (changed !== undefined && shadow.indexFree !== false && shadow.lastTree !== undefined && changed.length + touched.length > 0 && (await ownsLatest(shadow))) {
      const asked = new Set([...changed, ...touched]);
      const kept = (shadow.lastLarge ?? []).filter(ref => !covers(asked, ref.path));
      const limits = { largeBytes: LARGE_FILE_BYTES, newFiles: MAX_NEW_FILES, newBytes: MAX_NEW_BYTES };
      const fast = await treeTurn(shadow, [...asked], new Set(touched), kept, limits).catch((error: unknown) => {
        log(`checkpoint of ${shadow.workTree} through the index instead: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      if (fast) {
        await noteIndexBehind(shadow, fast.tree);
        shadow.lastWay = 'index-free';
        return finish(shadow, fast.tree, fast.large);
      }
    }
    // One writer of the index at a time, across runtimes too (indexLock.ts).
    const written = await withIndexLock(shadow.gitDir, () => throughIndex(shadow, changed, touched)).catch((error: unknown) => {
      throw error instanceof IndexLockBusy ? new CheckpointSkipped(error.message) : error;
    });
    return written.same ? { tree: written.tree, large: written.large } : finish(shadow, written.tree, written.large);
  });
}

/**
 * The checkpoint through the shadow's index: `known` the watcher's paths, or undefined (scan
 * everything). `same`: the last tree again, nothing written.
 */
async function throughIndex(shadow: ShadowRepo, known: string[] | undefined, touched: readonly string[]): Promise<{ tree: string; large: LargeFileRef[]; same?: true }> {
  let changed = known;
  // An index that could not be brought to the latest tree may lack what index-free checkpoints recorded: all of it is looked at.
  if (!(await syncIndex(shadow))) changed = undefined;
  // The usual turn (edits of tracked files, new plain files) is listed from memory (trackedPaths.ts),
  // however many files it changed: no pathspecs.
  const quick = changed === undefined || changed.length === 0 ? undefined : await quickListing(shadow, changed, touched);
  if (!quick && changed?.length !== 0) forgetTracked(shadow);
  // A name that is not UTF-8 cannot go on git's command line as a pathspec: everything is scanned then.
  const scope = quick ? changed : changed === undefined || changed.length > MAX_PATHSPECS || changed.some(hasRawBytes) ? undefined : changed;
  const listed = quick ?? (scope === undefined ? await scanAll(shadow) : await scanPaths(shadow, scope));
  // Nested repositories show as `dir/`: their own history is theirs, not a file of ours. `.git` in any
  // case is a name git never records (update-index ignores it; pathBytes.ts).
  const candidates = [...new Set([...listed.paths, ...touched])].filter(p => p !== '' && !p.endsWith('/') && isInside(p) && !p.split('/').some(isDotGit));
  // Only checkpoints write the shadow's index (restores use a scratch one), so an empty list means the
  // same tree: one git call, not two.
  const previous = shadow.lastTree;
  // Files kept by reference are outside the index, so a scan lists them every time; when only the
  // changed paths were asked about, those the last checkpoint had elsewhere are still as they were.
  const asked = scope ? new Set([...scope, ...touched]) : undefined;
  const large: LargeFileRef[] = asked ? (shadow.lastLarge ?? []).filter(ref => !covers(asked, ref.path)) : [];
  if (candidates.length === 0 && previous) {
    shadow.lastWay = 'index';
    await noteTree(shadow.gitDir, previous);
    shadow.lastLarge = large;
    return { tree: previous, large: [...large], same: true };
  }
  const update: string[] = [];
  const drop: string[] = [];
  const present = new Set<string>();
  let newBytes = 0;
  await Promise.all(candidates.map(async rel => {
    // Safe to drop: a file gone since git listed it is not large; the checkpoint records it as deleted.
    const stat = await fs.lstat(fsPath(path.join(shadow.workTree, rel))).catch(() => undefined);
    if (stat) present.add(rel);
    if (stat?.isFile() && stat.size > LARGE_FILE_BYTES) {
      large.push({ path: rel, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
      drop.push(rel);
      return;
    }
    if (stat?.isDirectory()) {
      // A tracked file now a folder: its entry goes first (the folder's files come as paths of their
      // own). A nested repository (a gitlink) is its own history, left as it was.
      if (listed.tracked.has(rel) && !(await exists(path.join(shadow.workTree, rel, '.git')))) drop.push(rel);
      return;
    }
    // The limit is on untracked content; a tracked file's content is the user's repository's already
    // (and the watcher names whole folders of unchanged tracked files).
    if (!listed.tracked.has(rel)) newBytes += stat?.size ?? 0;
    update.push(rel);
  }));
  if (update.length > MAX_NEW_FILES || newBytes > MAX_NEW_BYTES) {
    throw new CheckpointSkipped(`${update.length} files (${Math.round(newBytes / 1048576)} MiB) to record: over the checkpoint limit of ${MAX_NEW_FILES} files / ${MAX_NEW_BYTES / 1048576} MiB.`);
  }
  // The writes see the shadow's own objects only: every object they need that it lacks is written
  // into it, none is borrowed from the user's repository (keepObjects.ts); write-tree then does not
  // look for the blobs of entries the index was seeded with (the first tree's copy holds them).
  if (drop.length > 0) await shadowGitOk(shadow, [...SPLIT_INDEX, 'update-index', '--force-remove', '-z', '--stdin'], { input: nulList(drop), ownObjects: true });
  if (update.length > 0) {
    // update-index stats each path and hashes only those whose stat data differs from the index;
    // --replace: a file where a folder was (or the reverse) takes the place of the old entries.
    await shadowGitOk(shadow, [...SPLIT_INDEX, 'update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { input: nulList(update), timeoutMs: CHECKPOINT_TIMEOUT_MS, ownObjects: true });
  }
  const tree = (await shadowGitOk(shadow, [...SPLIT_INDEX, 'write-tree', '--missing-ok'], { ownObjects: true })).trim();
  shadow.indexTree = tree;
  shadow.indexSeen = await indexId(shadow);
  shadow.lastWay = 'index';
  if (quick) await followWrite(shadow, update, drop, present);
  return { tree, large };
}

/** The tree recorded: remembered as the last, its objects kept in the shadow, noted for the sweep. */
async function finish(shadow: ShadowRepo, tree: string, large: LargeFileRef[]): Promise<{ tree: string; large: LargeFileRef[] }> {
  {
    shadow.lastTree = tree;
    // What the tree borrows from the user's objects is copied, so their gc cannot take it (keepObjects.ts).
    // The whole first tree can take seconds in a big repository: it is queued behind this checkpoint, not
    // waited for; every later piece of work on the shadow (checkpoints, restores) waits for it.
    // A fork's worktree starts at its base commit, which the fork's branch keeps: not copied.
    const kept = await keepObjects(shadow, tree);
    if (kept === 'whole-tree-needed' && shadow.baseOnBranch) {
      await assumeKept(shadow, tree);
    } else if (kept === 'whole-tree-needed') {
      void serialized(shadow, () => keepWholeTree(shadow, tree)).catch((error: unknown) =>
        log(`checkpoint objects of ${shadow.workTree} not copied: ${error instanceof Error ? error.message : String(error)}`));
    }
    await noteTree(shadow.gitDir, tree);
    large.sort((a, b) => (a.path < b.path ? -1 : 1));
    shadow.lastLarge = large;
    return { tree, large: [...large] };
  }
}

/**
 * The file naming the last tree while the index is behind it (index-free checkpoints ran since it was
 * written): a runtime started later brings the index to that tree first, so the tools' ignored files
 * recorded meanwhile stay in, as they would had the index been written each time.
 */
const BEHIND_NAME = 'fork-agents-index-behind';

async function noteIndexBehind(shadow: ShadowRepo, tree: string): Promise<void> {
  await fs.writeFile(path.join(shadow.gitDir, BEHIND_NAME), `${tree}\n`, { mode: 0o600 });
}

/** The tree named by the file, if any. */
async function behindTree(shadow: ShadowRepo): Promise<string | undefined> {
  // Safe to drop: no file is the usual case — the index is the last tree's.
  const saved = (await fs.readFile(path.join(shadow.gitDir, BEHIND_NAME), 'utf8').catch(() => '')).trim();
  return /^[0-9a-f]{40,64}$/.test(saved) ? saved : undefined;
}

/**
 * Whether this runtime's last tree is the store's latest for the shadow, so an index-free checkpoint can
 * build on it. Another runtime on the same store writes either the file above (an index-free
 * checkpoint of its own) or the index: then the checkpoint goes through the index, brought to the
 * latest tree, as two runtimes always shared it.
 */
async function ownsLatest(shadow: ShadowRepo): Promise<boolean> {
  const behind = await behindTree(shadow);
  if (behind !== undefined) return behind === shadow.lastTree;
  return shadow.lastTree === shadow.indexTree && shadow.indexSeen !== undefined && (await indexId(shadow)) === shadow.indexSeen;
}

/**
 * Brings the shadow's index to the latest tree when index-free checkpoints (this runtime's, another's,
 * or an earlier runtime's) wrote trees since it was written.
 */
async function syncIndex(shadow: ShadowRepo): Promise<boolean> {
  const file = path.join(shadow.gitDir, BEHIND_NAME);
  const target = await behindTree(shadow);
  if (target === undefined) return true;
  // One tree merge: entries whose blob is the index's keep their stat data, so nothing is hashed again
  // but what differs (git-read-tree(1), "Single Tree Merge"); -i: the work tree is not compared (it is what the
  // checkpoint reads next).
  const result = await shadowGit(shadow, [...SPLIT_INDEX, 'read-tree', '-m', '-i', target]);
  if (result.code !== 0) {
    log(`checkpoint index of ${shadow.workTree} not brought to ${target}: ${result.stderr.trim()}`);
  } else {
    shadow.indexTree = target;
    shadow.indexSeen = await indexId(shadow);
  }
  await fs.rm(file, { force: true });
  return result.code === 0;
}

/**
 * More changed paths than this are not passed as pathspecs: git matches every index entry against every
 * pathspec, so past this one scan of everything is as quick. A turn listed from memory passes none.
 */
const MAX_PATHSPECS = 1_000;

/**
 * The writes of the shadow's own index (update-index, write-tree — each writes the index back) go in
 * split mode: the bulk stays in a `sharedindex.*` file beside it and each write is only the entries
 * changed since, instead of the whole index (git-update-index(1), "SPLIT INDEX"). On the command line,
 * not in the shadow's config, so restores' scratch indexes stay whole files and leave no shared ones.
 * Shared files a rewrite replaced are deleted after a day (git's default keeps them two weeks).
 */
const SPLIT_INDEX = ['-c', 'core.splitIndex=true', '-c', 'splitIndex.sharedIndexExpire=1.day.ago'];

interface Listed {
  /** Paths git should look at: changed, deleted, new — or, for a scoped look, every tracked one in scope. */
  paths: string[];
  /** Those of `paths` the index already has. */
  tracked: ReadonlySet<string>;
}

/** Every file whose stat data differs from the index, deleted, or untracked and not ignored: a stat of every file. */
async function scanAll(shadow: ShadowRepo): Promise<Listed> {
  return tagged(await shadowGitNames(shadow, ['ls-files', '-z', '-t', '-m', '-o', '-d', '--exclude-standard'], { timeoutMs: CHECKPOINT_TIMEOUT_MS }));
}

/**
 * The index's entries in `scope` (files or folders the watcher named) and the untracked, not ignored
 * files there. No stat here: `update-index` stats what it is given and skips what did not change, and
 * removes what is gone (a deleted folder's files are its entries under it).
 */
async function scanPaths(shadow: ShadowRepo, scope: string[]): Promise<Listed> {
  if (scope.length === 0) return { paths: [], tracked: new Set() };
  return tagged(await shadowGitNames(shadow, ['--literal-pathspecs', 'ls-files', '-z', '-t', '-c', '-o', '--exclude-standard', '--', ...scope], { timeoutMs: CHECKPOINT_TIMEOUT_MS }));
}

/** `ls-files -t` lines: a tag, a space, the path; `?` untracked, any other tag an index entry. */
function tagged(listed: string): Listed {
  const paths: string[] = [];
  const tracked = new Set<string>();
  for (const line of listed.split('\0')) {
    if (line.length < 3) continue;
    const rel = line.slice(2);
    paths.push(rel);
    if (line[0] !== '?') tracked.add(rel);
  }
  return { paths, tracked };
}

/**
 * What changed since the last checkpoint by the shadow's watcher, or undefined: scan everything. The
 * watcher starts at the first checkpoint (before its scan, so nothing made meanwhile is missed); one that
 * could not start, or stopped trusting its notices, is not tried again: every checkpoint scans then.
 */
async function knownChanges(shadow: ShadowRepo): Promise<Set<string> | undefined> {
  if (shadow.watcher?.healthy) return shadow.watcher.take();
  if (shadow.watcher || shadow.watch === false) return undefined;
  // The ignored folders (`dir/` entries) are never watched: build output and dependencies churn.
  const ignored = await shadowGitNames(shadow, ['ls-files', '-z', '-o', '-i', '--directory', '--exclude-standard'], { timeoutMs: CHECKPOINT_TIMEOUT_MS });
  const skip = new Set(ignored.split('\0').filter(p => p.endsWith('/')).map(p => p.slice(0, -1)));
  const watcher = new ChangeWatcher(shadow.workTree, skip);
  if (!watcher.start()) log(`checkpoints of ${shadow.workTree}: more than ${MAX_WATCHED_FOLDERS} folders to watch; each checkpoint scans the whole tree`);
  shadow.watcher = watcher;
  return undefined;
}

/** Whether `rel` or a folder it is in was among the paths asked about. */
function covers(asked: ReadonlySet<string>, rel: string): boolean {
  for (let at = rel; at !== '.' && at !== ''; at = path.posix.dirname(at)) if (asked.has(at)) return true;
  return false;
}

function exists(file: string): Promise<boolean> {
  // Safe to drop: any failure to see it counts as "not there".
  return fs.access(fsPath(file)).then(() => true, () => false);
}

function isInside(rel: string): boolean {
  return !path.isAbsolute(rel) && !rel.split('/').includes('..');
}

/** A tool's path (relative to the session's root) as a path relative to the shadow's work tree, if inside it. */
export function relativeToWorkTree(shadow: ShadowRepo, root: string, file: string): string | undefined {
  const rel = path.relative(shadow.workTree, path.resolve(root, file)).split(path.sep).join('/');
  return rel === '' || !isInside(rel) ? undefined : rel;
}

/** Whether the shadow still has `tree` (a damaged or swept store may not). */
export async function hasTree(shadow: ShadowRepo, tree: string): Promise<boolean> {
  const result = await shadowGit(shadow, ['cat-file', '-e', `${tree}^{tree}`]);
  return result.code === 0;
}
