// A fork's changes: its worktree's current state (edits, new and deleted files, commits it made) against
// the base it started from. Renames show as a deletion plus an addition, which is what apply handles.
import type { ForkFileStatus } from '../../common/protocol/forks';
import { snapshotTree } from './snapshot';
import { git, gitBytes, gitOk } from './run';

/** One line of `git diff-tree -r -z --no-renames` raw output. */
export interface RawChange {
  path: string;
  status: ForkFileStatus;
  oldMode: string;
  newMode: string;
  /** Blob ids; the all-zero id where that side has no file. */
  oldBlob: string;
  newBlob: string;
}

const STATUS: Record<string, ForkFileStatus> = { A: 'added', D: 'deleted', M: 'modified', T: 'type-changed' };

export function parseRawDiff(stdout: string): RawChange[] {
  const fields = stdout.split('\0');
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i];
    if (!meta.startsWith(':')) continue;
    const [oldMode, newMode, oldBlob, newBlob, code] = meta.slice(1).split(' ');
    changes.push({ path: fields[i + 1], status: STATUS[code[0]] ?? 'modified', oldMode, newMode, oldBlob, newBlob });
  }
  return changes;
}

export function isMissingBlob(blob: string): boolean {
  return /^0+$/.test(blob);
}

/** The raw changes from `base` to `tree` (both in the repository `cwd` belongs to). */
export async function rawChanges(cwd: string, base: string, tree: string): Promise<RawChange[]> {
  return parseRawDiff(await gitOk(cwd, ['diff-tree', '-r', '-z', '--no-renames', base, tree]));
}

export interface ForkDiff {
  files: { path: string; status: ForkFileStatus }[];
  /** Unified patch, binary files included (`git apply` can take it). */
  patch: string;
  /** The worktree's state tree the diff was taken against. */
  tree: string;
}

export async function forkDiff(worktree: string, base: string): Promise<ForkDiff> {
  const tree = await snapshotTree(worktree);
  const files = (await rawChanges(worktree, base, tree)).map(change => ({ path: change.path, status: change.status }));
  // Fixed prefixes and no external tools: the user's diff settings must not change what we return.
  const patch = await gitOk(worktree, [
    'diff', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', base, tree,
  ]);
  return { files, patch, tree };
}

/** A file at the fork's base as it would be checked out; undefined when the base has no such file. */
export async function fileAtBase(cwd: string, base: string, rel: string): Promise<Buffer | undefined> {
  const clean = rel.replace(/\\/g, '/').replace(/^\.\//, '');
  if (clean === '' || clean.startsWith('/') || clean.split('/').includes('..')) return undefined;
  const blob = await git(cwd, ['rev-parse', '--verify', '-q', `${base}:${clean}`]);
  if (blob.code !== 0) return undefined;
  const sha = blob.stdout.trim();
  const type = await git(cwd, ['cat-file', '-t', sha]);
  if (type.stdout.trim() !== 'blob') return undefined;
  const content = await gitBytes(cwd, ['cat-file', '--filters', `--path=${clean}`, sha]);
  return content.code === 0 ? content.stdout : (await gitBytes(cwd, ['cat-file', 'blob', sha])).stdout;
}
