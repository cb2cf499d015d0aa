// Putting a work tree's files back to a checkpoint's tree: what differs, what of that also changed outside
// the agent (the user decides about those), and the restore itself — written by git's checkout-index from
// a throw-away index, deletions by us after checking the folder they are in is still inside the work tree.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ForkFileStatus } from '../../common/protocol/forks';
import { isMissingBlob, parseRawDiff } from '../git/forkDiff';
import { isInsidePath } from '../git/repo';
import type { CheckpointRecord, LargeFileRef } from '../session/records';
import { serialized, shadowGitBytes, shadowGitNames, shadowGitOk } from './shadowRepo';
import { fsPath, nameOf, nulList } from './pathBytes';
import type { ShadowRepo } from './shadowRepo';

export interface FileChange { path: string; status: ForkFileStatus; restore: boolean }

/** The paths that differ between two trees of the shadow, `from` → `to` (renames as delete + add). */
export async function treeChanges(shadow: ShadowRepo, from: string, to: string): Promise<{ path: string; status: ForkFileStatus; deleted: boolean }[]> {
  if (from === to) return [];
  const raw = parseRawDiff(await shadowGitNames(shadow, ['diff-tree', '-r', '-z', '--no-renames', from, to]));
  return raw.filter(change => change.newMode !== '160000' && change.oldMode !== '160000')
    .map(change => ({ path: change.path, status: change.status, deleted: isMissingBlob(change.newBlob) }));
}

/**
 * Paths changed outside the agent among `since` (checkpoints of the current history, in order): between
 * a turn's end and the next turn's start, and after the last turn's end up to `now`.
 */
export async function changedOutside(shadow: ShadowRepo, since: readonly CheckpointRecord[], now: string): Promise<Set<string>> {
  const outside = new Set<string>();
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < since.length; i++) {
    if (since[i].kind === 'turn-end' && since[i + 1].kind === 'turn-start') pairs.push([since[i].tree, since[i + 1].tree]);
  }
  const last = since[since.length - 1];
  // After a turn that never recorded its end (a crash), everything since its start counts as outside: ask.
  if (last) pairs.push([last.tree, now]);
  for (const [from, to] of pairs) for (const change of await treeChanges(shadow, from, to)) outside.add(change.path);
  return outside;
}

/** Files kept by reference (too large to record) are left alone by a restore, on either side. */
export function largePaths(...lists: (readonly LargeFileRef[] | undefined)[]): Set<string> {
  return new Set(lists.flatMap(list => (list ?? []).map(ref => ref.path)));
}

/**
 * Makes `paths` of the work tree what they are in `tree`: written from it, or deleted where it has none.
 * Returns the paths it left: ignored ones it would delete, and those behind a link out of the tree.
 */
export function restorePaths(shadow: ShadowRepo, tree: string, paths: readonly { path: string; deleted: boolean }[]): Promise<string[]> {
  return serialized(shadow, async () => {
    const write = paths.filter(p => !p.deleted).map(p => p.path);
    const remove = paths.filter(p => p.deleted).map(p => p.path);
    const refused: string[] = [];
    // An ignored file missing from the target may simply not have been recorded then (ignored files are
    // recorded only once a tool touched them): it is left alone, never deleted.
    const ignored = remove.length === 0 ? new Set<string>() : await ignoredOf(shadow, remove);
    for (const rel of ignored) refused.push(rel);
    // Deletions first: a file replaced by a folder of the same name (or back) needs the old one gone.
    for (const rel of remove) {
      if (ignored.has(rel)) continue;
      const file = path.join(shadow.workTree, rel);
      // Safe to drop: a parent folder that no longer exists holds nothing to delete; skipped below.
      const parent = await fs.realpath(fsPath(path.dirname(file)), { encoding: 'buffer' }).then(nameOf, () => undefined);
      if (!parent) continue;
      if (!isInsidePath(shadow.workTree, parent)) {
        refused.push(rel);
        continue;
      }
      await fs.rm(fsPath(path.join(parent, path.basename(file))), { force: true, recursive: true });
      await removeEmptyParents(shadow.workTree, parent);
    }
    if (write.length > 0) {
      const scratch = path.join(os.tmpdir(), `fork-agents-restore-${randomUUID()}`);
      try {
        const env = { GIT_INDEX_FILE: scratch };
        await shadowGitOk(shadow, ['read-tree', tree], { env });
        // checkout-index replaces links on the way instead of writing through them (git's own rule).
        await shadowGitOk(shadow, ['checkout-index', '-f', '-z', '--stdin'], { env, input: nulList(write), timeoutMs: 10 * 60_000 });
      } finally {
        await fs.rm(scratch, { force: true });
      }
    }
    return refused;
  });
}

async function ignoredOf(shadow: ShadowRepo, paths: readonly string[]): Promise<Set<string>> {
  // --no-index: by the ignore rules alone, whether or not the shadow's index has the path.
  // Exit 1: none ignored; the answer is the output either way.
  const result = await shadowGitBytes(shadow, ['check-ignore', '--no-index', '-z', '--stdin'], { input: nulList(paths) });
  return new Set(nameOf(result.stdout).split('\0').filter(Boolean));
}

async function removeEmptyParents(top: string, dir: string): Promise<void> {
  for (let at = dir; at !== top && isInsidePath(top, at); at = path.dirname(at)) {
    try {
      await fs.rmdir(fsPath(at));
    } catch {
      return;
    }
  }
}
