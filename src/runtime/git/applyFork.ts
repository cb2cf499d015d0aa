// Applies a fork's changes to the main working tree as uncommitted changes, three-way per file
// (docs/design.md §4.8). The main tree's index is never touched. Every file is planned before anything is written:
// - the main file still matches the fork's base: it takes the fork's version (or is deleted);
// - it already matches the fork's version: nothing to do;
// - both changed it: `git merge-file`; a clean merge is written, overlapping edits are a conflict;
// - modified on one side and deleted on the other, binary, submodule or symlink on both sides: a conflict.
// onConflict "refuse" (the default): with any conflict nothing at all is written. "markers": the clean
// files are written, text conflicts get conflict markers, other conflicts keep the main tree's file.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApplyConflictMode } from '../../common/protocol/forks';
import { isMissingBlob, rawChanges } from './forkDiff';
import type { RawChange } from './forkDiff';
import { isInsidePath, realpathOfExisting } from './repo';
import { gitBytes, gitOk } from './run';
import { snapshotTree } from './snapshot';

export interface ApplyOptions { repoRoot: string; worktree: string; base: string; onConflict?: ApplyConflictMode }

export interface ApplyOutcome {
  applied: string[];
  conflicts: string[];
  conflictDetails: { path: string; reason: string }[];
  /** Conflicting files now holding conflict markers in the main tree (onConflict "markers" only). */
  withMarkers: string[];
  /** The fork's changes already in the main tree. */
  unchanged: string[];
  message: string;
  /** The worktree state that was applied. */
  tree: string;
}

type Plan =
  | { path: string; kind: 'write'; content: Buffer; executable: boolean }
  | { path: string; kind: 'symlink'; target: string }
  | { path: string; kind: 'delete' }
  | { path: string; kind: 'same' }
  | { path: string; kind: 'conflict'; reason: string; markers?: Buffer };

type Ours =
  | { kind: 'missing' }
  | { kind: 'file'; content: Buffer; executable: boolean; sha: string }
  | { kind: 'link'; target: string; sha: string }
  | { kind: 'other'; reason: string };

const PARALLEL = 8;

export async function applyForkToMain(options: ApplyOptions): Promise<ApplyOutcome> {
  const top = await fs.realpath(options.repoRoot);
  const tree = await snapshotTree(options.worktree);
  const changes = await rawChanges(top, options.base, tree);
  const plans = await mapLimit(changes, PARALLEL, change => planFile(top, change));
  const conflicts = plans.filter((p): p is Extract<Plan, { kind: 'conflict' }> => p.kind === 'conflict');
  const mode = options.onConflict ?? 'refuse';
  const outcome: ApplyOutcome = {
    applied: [], conflicts: conflicts.map(c => c.path), conflictDetails: conflicts.map(c => ({ path: c.path, reason: c.reason })),
    withMarkers: [], unchanged: plans.filter(p => p.kind === 'same').map(p => p.path), message: '', tree,
  };
  if (conflicts.length === 0 || mode === 'markers') {
    for (const plan of plans) {
      if (plan.kind === 'same' || (plan.kind === 'conflict' && !plan.markers)) continue;
      await writePlan(top, plan);
      if (plan.kind === 'conflict') outcome.withMarkers.push(plan.path);
      else outcome.applied.push(plan.path);
    }
  }
  outcome.message = describe(outcome, changes.length, mode);
  return outcome;
}

async function planFile(top: string, change: RawChange): Promise<Plan> {
  const rel = change.path;
  const conflict = (reason: string, markers?: Buffer): Plan => ({ path: rel, kind: 'conflict', reason, markers });
  if (change.oldMode === '160000' || change.newMode === '160000') return conflict('submodule changes are not applied; update the submodule by hand');
  const ours = await readOurs(top, rel);
  if (ours.kind === 'other') return conflict(ours.reason);
  const oursSha = ours.kind === 'missing' ? undefined : ours.sha;
  const baseSha = isMissingBlob(change.oldBlob) ? undefined : change.oldBlob;
  const forkSha = isMissingBlob(change.newBlob) ? undefined : change.newBlob;
  const forkExecutable = change.newMode === '100755';
  const forkLink = change.newMode === '120000';

  if (oursSha === forkSha && (ours.kind !== 'file' || forkLink || ours.executable === forkExecutable)) return { path: rel, kind: 'same' };
  const oursIsBase = oursSha === baseSha && (ours.kind !== 'file' || change.oldMode === '120000' || ours.executable === (change.oldMode === '100755'));
  if (oursIsBase || oursSha === forkSha) {
    // Unchanged in the main tree since the fork started (or only its mode differs): take the fork's version.
    if (!forkSha) return { path: rel, kind: 'delete' };
    if (forkLink) return { path: rel, kind: 'symlink', target: (await blob(top, forkSha)).toString('utf8') };
    return { path: rel, kind: 'write', content: await smudged(top, rel, forkSha), executable: forkExecutable };
  }
  if (!forkSha) return conflict('changed in the main working tree, deleted in the fork');
  if (!oursSha) return conflict(baseSha ? 'deleted in the main working tree, changed in the fork' : 'unexpected state');
  if (ours.kind === 'link' || forkLink || change.oldMode === '120000') return conflict('a symbolic link changed on both sides');
  if (ours.kind !== 'file') return conflict('unexpected state');

  const theirs = await smudged(top, rel, forkSha);
  const original = baseSha ? await smudged(top, rel, baseSha) : Buffer.alloc(0);
  const merged = await mergeFile(ours.content, original, theirs);
  if (merged.code === 0) return { path: rel, kind: 'write', content: merged.stdout, executable: forkExecutable };
  if (merged.code < 0 || merged.code >= 128) return conflict('binary file changed on both sides');
  return conflict(baseSha ? 'both sides changed the same lines' : 'added on both sides with different content', merged.stdout);
}

async function readOurs(top: string, rel: string): Promise<Ours> {
  const abs = path.join(top, rel);
  // A symlinked folder in the main tree must not carry the write somewhere else.
  if (!isInsidePath(top, await realpathOfExisting(path.dirname(abs)))) return { kind: 'other', reason: 'its folder leads outside the main working tree through a symbolic link' };
  let stat;
  try {
    stat = await fs.lstat(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'other', reason: `cannot read it: ${(error as Error).message}` };
  }
  if (stat.isSymbolicLink()) {
    const target = await fs.readlink(abs);
    return { kind: 'link', target, sha: await hashBlob(top, rel, Buffer.from(target), false) };
  }
  if (stat.isDirectory()) return { kind: 'other', reason: 'it is a folder in the main working tree' };
  if (!stat.isFile()) return { kind: 'other', reason: 'it is not a regular file in the main working tree' };
  const content = await fs.readFile(abs);
  return { kind: 'file', content, executable: (stat.mode & 0o100) !== 0, sha: await hashBlob(top, rel, content, true) };
}

async function writePlan(top: string, plan: Plan): Promise<void> {
  const abs = path.join(top, plan.path);
  if (plan.kind === 'delete') {
    await fs.rm(abs, { force: true });
    await removeEmptyFolders(top, path.dirname(abs));
    return;
  }
  await fs.mkdir(path.dirname(abs), { recursive: true });
  // Never write through a symlink that sits where the new content goes: replace the link itself.
  // Safe to drop: no stat: nothing there yet, so no link to replace.
  const existing = await fs.lstat(abs).catch(() => undefined);
  if (existing?.isSymbolicLink() || (plan.kind === 'symlink' && existing)) await fs.rm(abs, { force: true });
  if (plan.kind === 'symlink') {
    await fs.symlink(plan.target, abs);
    return;
  }
  const content = plan.kind === 'write' ? plan.content : plan.kind === 'conflict' ? plan.markers! : Buffer.alloc(0);
  await fs.writeFile(abs, content);
  if (plan.kind === 'write') {
    const mode = (await fs.stat(abs)).mode;
    await fs.chmod(abs, plan.executable ? mode | 0o111 : mode & ~0o111);
  }
}

/** Git's rule: a folder left empty by a deletion goes too (never the top). */
async function removeEmptyFolders(top: string, dir: string): Promise<void> {
  while (dir !== top && isInsidePath(top, dir)) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
    dir = path.dirname(dir);
  }
}

/** The blob id the content would have at `rel` (clean filters and line-ending rules of that path applied). */
async function hashBlob(top: string, rel: string, content: Buffer, filters: boolean): Promise<string> {
  const args = filters ? ['hash-object', `--path=${rel}`, '--stdin'] : ['hash-object', '--no-filters', '--stdin'];
  return (await gitOk(top, args, { input: content })).trim();
}

async function blob(top: string, sha: string): Promise<Buffer> {
  const result = await gitBytes(top, ['cat-file', 'blob', sha]);
  if (result.code !== 0) throw new Error(`git cat-file ${sha} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

/** A blob as it would be checked out at `rel` (smudge filters, line endings). */
async function smudged(top: string, rel: string, sha: string): Promise<Buffer> {
  const result = await gitBytes(top, ['cat-file', '--filters', `--path=${rel}`, sha]);
  return result.code === 0 ? result.stdout : blob(top, sha);
}

async function mergeFile(ours: Buffer, base: Buffer, theirs: Buffer): Promise<{ code: number; stdout: Buffer }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `fork-agents-merge-${randomUUID().slice(0, 8)}-`));
  try {
    const files = ['main', 'base', 'fork'].map(name => path.join(dir, name));
    await Promise.all([fs.writeFile(files[0], ours), fs.writeFile(files[1], base), fs.writeFile(files[2], theirs)]);
    const result = await gitBytes(dir, ['merge-file', '-p', '-L', 'main', '-L', 'base', '-L', 'fork', '--', ...files]);
    return { code: result.code, stdout: result.stdout };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function describe(outcome: ApplyOutcome, total: number, mode: ApplyConflictMode): string {
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  if (total === 0) return 'The fork changed nothing; there is nothing to apply.';
  const list = outcome.conflictDetails.map(c => `${c.path} (${c.reason})`).join('; ');
  if (outcome.conflicts.length > 0 && mode === 'refuse') {
    return `Not applied: ${files(outcome.conflicts.length)} conflict with changes in the main working tree: ${list}. `
      + 'Nothing was written. Resolve them by hand from the review, or apply again with conflict markers.';
  }
  const parts: string[] = [];
  if (outcome.applied.length > 0) parts.push(`Applied ${files(outcome.applied.length)} to the main working tree as uncommitted changes.`);
  else if (outcome.conflicts.length === 0) parts.push('Already applied: the main working tree has every change of this fork.');
  if (outcome.withMarkers.length > 0) parts.push(`${files(outcome.withMarkers.length)} now hold conflict markers (<<<<<<< main … >>>>>>> fork) to resolve: ${outcome.withMarkers.join(', ')}.`);
  const untouched = outcome.conflictDetails.filter(c => !outcome.withMarkers.includes(c.path));
  if (untouched.length > 0) parts.push(`Left as they are in the main tree: ${untouched.map(c => `${c.path} (${c.reason})`).join('; ')}.`);
  return parts.join(' ');
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
