// One checkpoint: the work tree's state — tracked files, untracked files that are not ignored, and every
// file a tool touched (ignored or not) — as a tree in the shadow repository. The shadow's index persists
// between checkpoints, so git hashes only the files that changed since the last one (`ls-files -m -o -d`
// lists them; only those go to `update-index`). Which paths to ask about comes from the shadow's watcher
// (changeWatcher.ts): with it, git stats only the paths that changed, not every file, and a checkpoint
// with nothing changed runs no git at all — the cost follows the changed files, not the repository's
// size (`npm run bench`, section checkpoints). Without a trusted watcher every checkpoint scans all.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CheckpointRecord, LargeFileRef } from '../session/records';
import { serialized, shadowGit, shadowGitOk } from './shadowRepo';
import { noteTree } from './sweepCheckpoints';
import { assumeKept, keepObjects, keepWholeTree } from './keepObjects';
import { ChangeWatcher, MAX_WATCHED_FOLDERS } from './changeWatcher';
import { log } from '../log';
import type { ShadowRepo } from './shadowRepo';

/**
 * Files above this size are kept by reference (path, size, modification time), never hashed or copied:
 * a rewind leaves them as they are and says so.
 */
export const LARGE_FILE_BYTES = 32 * 1024 * 1024;
/** A folder with more new content than this to record (a home folder opened by mistake) gets no checkpoint. */
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
    const scope = known === undefined || known.size > MAX_PATHSPECS ? undefined : [...known];
    const listed = scope?.length === 0 ? '' : await shadowGitOk(shadow, [
      ...(scope ? ['--literal-pathspecs'] : []), 'ls-files', '-z', '-m', '-o', '-d', '--exclude-standard', ...(scope ? ['--', ...scope] : []),
    ], { timeoutMs: CHECKPOINT_TIMEOUT_MS });
    // Nested repositories show as `dir/`: their own history is theirs, not a file of ours.
    const candidates = [...new Set([...listed.split('\0'), ...touched])].filter(p => p !== '' && !p.endsWith('/') && isInside(p));
    // Only checkpoints write the shadow's index (restores use a scratch one), so an empty list means the
    // same tree: one git call, not two.
    const previous = shadow.lastTree;
    // Files kept by reference are outside the index, so a scan lists them every time; when only the
    // changed paths were asked about, those the last checkpoint had elsewhere are still as they were.
    const asked = scope ? new Set([...scope, ...touched]) : undefined;
    const large: LargeFileRef[] = asked ? (shadow.lastLarge ?? []).filter(ref => !covers(asked, ref.path)) : [];
    if (candidates.length === 0 && previous) {
      await noteTree(shadow.gitDir, previous);
      shadow.lastLarge = large;
      return { tree: previous, large: [...large] };
    }
    const update: string[] = [];
    const drop: string[] = [];
    let newBytes = 0;
    await Promise.all(candidates.map(async rel => {
      // Safe to drop: a file gone since git listed it is not large; the checkpoint records it as deleted.
      const stat = await fs.lstat(path.join(shadow.workTree, rel)).catch(() => undefined);
      if (stat?.isFile() && stat.size > LARGE_FILE_BYTES) {
        large.push({ path: rel, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
        drop.push(rel);
        return;
      }
      if (stat?.isDirectory()) return;
      newBytes += stat?.size ?? 0;
      update.push(rel);
    }));
    if (update.length > MAX_NEW_FILES || newBytes > MAX_NEW_BYTES) {
      throw new CheckpointSkipped(`${update.length} files (${Math.round(newBytes / 1048576)} MiB) to record: over the checkpoint limit of ${MAX_NEW_FILES} files / ${MAX_NEW_BYTES / 1048576} MiB.`);
    }
    if (update.length > 0) {
      await shadowGitOk(shadow, ['update-index', '--add', '--remove', '-z', '--stdin'], { input: update.join('\0') + '\0', timeoutMs: CHECKPOINT_TIMEOUT_MS });
    }
    if (drop.length > 0) await shadowGitOk(shadow, ['update-index', '--force-remove', '-z', '--stdin'], { input: drop.join('\0') + '\0' });
    const tree = (await shadowGitOk(shadow, ['write-tree'])).trim();
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
  });
}

/** More changed paths than this are not passed as pathspecs: one scan of everything is as quick. */
const MAX_PATHSPECS = 2_000;

/**
 * What changed since the last checkpoint by the shadow's watcher, or undefined: scan everything. The
 * watcher starts at the first checkpoint (before its scan, so nothing made meanwhile is missed); one that
 * could not start, or stopped trusting its notices, is not tried again: every checkpoint scans then.
 */
async function knownChanges(shadow: ShadowRepo): Promise<Set<string> | undefined> {
  if (shadow.watcher?.healthy) return shadow.watcher.take();
  if (shadow.watcher || shadow.watch === false) return undefined;
  // The ignored folders (`dir/` entries) are never watched: build output and dependencies churn.
  const ignored = await shadowGitOk(shadow, ['ls-files', '-z', '-o', '-i', '--directory', '--exclude-standard'], { timeoutMs: CHECKPOINT_TIMEOUT_MS });
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
