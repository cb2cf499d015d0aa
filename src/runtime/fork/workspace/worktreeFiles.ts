// Ignored files a new fork worktree gets on request: what `.worktreeinclude` (gitignore syntax,
// at the top of the repository) and the fork.worktree.include setting list is copied from the main
// working tree; what fork.worktree.link lists is linked instead. Nothing ignored arrives unlisted, so
// secrets never spread by default. Copies keep file modes; symlinks stay symlinks, and one that would
// point the fork outside its worktree is left out.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import ignore from 'ignore';
import type { WorktreeCopyMode } from '../../../common/worktreeOptions';
import { WORKTREE_INCLUDE_FILE } from '../../../common/worktreeOptions';
import { isInsidePath } from '../../git/repo';
import { git, gitOk } from '../../git/run';

export interface WorktreeFilesRequest {
  /** Top of the main working tree. */
  repoTop: string;
  /** The fork's worktree (same layout). */
  worktree: string;
  include?: readonly string[];
  link?: readonly string[];
  copyMode?: WorktreeCopyMode;
}

export interface WorktreeFilesOutcome {
  copied: number;
  linked: string[];
  /** What was listed but not brought over, with why (for the fork's output). */
  skipped: string[];
  /** "clone" was asked for but cp could not clone here; plain copies were made. */
  cloneFellBack?: boolean;
}

const COPY_PARALLELISM = 16;
/** Paths per `cp` call in clone mode, well below any ARG_MAX. */
const CP_BATCH = 500;

export async function bringIgnoredFiles(request: WorktreeFilesRequest): Promise<WorktreeFilesOutcome> {
  const outcome: WorktreeFilesOutcome = { copied: 0, linked: [], skipped: [] };
  const links = await linkFolders(request, outcome);
  const patterns = [...(await readIncludeFile(request.repoTop)), ...(request.include ?? [])].filter(p => p.trim() !== '');
  if (patterns.length === 0) return outcome;
  const matcher = ignore().add(patterns);
  const files = (await ignoredFiles(request.repoTop, links)).filter(file => matcher.ignores(file));
  if (files.length === 0) return outcome;
  const { regular, symlinks, modes } = await sortByType(request.repoTop, files);
  for (const link of symlinks) {
    if (await copySymlink(request, link)) outcome.copied++;
    else outcome.skipped.push(`${link} (a symlink that points outside the repository)`);
  }
  if (request.copyMode === 'clone' && process.platform !== 'win32') {
    const cloned = await cloneFiles(request, regular);
    if (cloned) {
      outcome.copied += regular.length;
      return outcome;
    }
    outcome.cloneFellBack = true;
  }
  const folders = new Map<string, Promise<unknown>>();
  const folder = (dir: string) => {
    let made = folders.get(dir);
    if (!made) folders.set(dir, (made = fs.mkdir(dir, { recursive: true })));
    return made;
  };
  await eachLimited(regular, COPY_PARALLELISM, async file => {
    const to = path.join(request.worktree, file);
    await folder(path.dirname(to));
    await fs.copyFile(path.join(request.repoTop, file), to);
    await fs.chmod(to, modes.get(file)! & 0o7777);
    outcome.copied++;
  });
  return outcome;
}

/** The patterns of `.worktreeinclude` (a missing file lists nothing). */
async function readIncludeFile(repoTop: string): Promise<string[]> {
  try {
    return (await fs.readFile(path.join(repoTop, WORKTREE_INCLUDE_FILE), 'utf8')).split(/\r?\n/);
  } catch {
    return [];
  }
}

/** Ignored files of the main working tree (git's own rules), leaving out linked folders. */
async function ignoredFiles(repoTop: string, linked: readonly string[]): Promise<string[]> {
  const excludes = linked.map(folder => `:(exclude,top)${folder}`);
  const stdout = await gitOk(repoTop, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ':/', ...excludes], { timeoutMs: 10 * 60_000 });
  return stdout.split('\0').filter(Boolean);
}

async function sortByType(repoTop: string, files: string[]): Promise<{ regular: string[]; symlinks: string[]; modes: Map<string, number> }> {
  const regular: string[] = [];
  const symlinks: string[] = [];
  const modes = new Map<string, number>();
  await eachLimited(files, 32, async file => {
    // Safe to drop: a file gone since git listed it has nothing to copy: no stat, skipped.
    const stat = await fs.lstat(path.join(repoTop, file)).catch(() => undefined);
    if (stat?.isSymbolicLink()) symlinks.push(file);
    else if (stat?.isFile()) {
      regular.push(file);
      modes.set(file, stat.mode);
    }
  });
  regular.sort();
  return { regular, symlinks, modes };
}

/**
 * A symlink is recreated as it is when its target stays inside the repository (a relative link then
 * resolves inside the worktree too); an absolute target inside the repository is made relative so it
 * points at the fork's own copy. Anything else is left out.
 */
async function copySymlink(request: WorktreeFilesRequest, file: string): Promise<boolean> {
  const from = path.join(request.repoTop, file);
  const target = await fs.readlink(from);
  const resolved = path.resolve(path.dirname(from), target);
  if (!isInsidePath(request.repoTop, resolved)) return false;
  const to = path.join(request.worktree, file);
  const relative = path.isAbsolute(target) ? path.relative(path.dirname(from), resolved) || '.' : target;
  await fs.mkdir(path.dirname(to), { recursive: true });
  await fs.rm(to, { force: true });
  await fs.symlink(relative, to);
  return true;
}

/** `cp -p --reflink=auto --parents`, in batches; false when this cp cannot (not GNU cp). */
async function cloneFiles(request: WorktreeFilesRequest, files: string[]): Promise<boolean> {
  for (let i = 0; i < files.length; i += CP_BATCH) {
    const batch = files.slice(i, i + CP_BATCH);
    const ok = await new Promise<boolean>(resolve => {
      execFile('cp', ['-p', '--reflink=auto', '--parents', '-t', request.worktree, '--', ...batch], { cwd: request.repoTop, maxBuffer: 16 * 1024 * 1024 },
        error => resolve(!error));
    });
    if (!ok) return false;
  }
  return true;
}

/**
 * Each listed folder of the main tree becomes a symlink in the worktree. Only ignored folders qualify:
 * a tracked one is the fork's own to change, and a path outside the repository is refused.
 */
async function linkFolders(request: WorktreeFilesRequest, outcome: WorktreeFilesOutcome): Promise<string[]> {
  const linked: string[] = [];
  for (const raw of request.link ?? []) {
    const folder = raw.trim().replace(/\\/g, '/').replace(/\/+$/, '');
    if (folder === '') continue;
    const source = path.resolve(request.repoTop, folder);
    if (path.isAbsolute(folder) || source === request.repoTop || !isInsidePath(request.repoTop, source)) {
      outcome.skipped.push(`${raw} (link: not a folder inside the repository)`);
      continue;
    }
    // Safe to drop: a missing source is reported below as not linked; no stat is that answer.
    const stat = await fs.lstat(source).catch(() => undefined);
    if (!stat?.isDirectory()) {
      outcome.skipped.push(`${folder} (link: no such folder in the main working tree)`);
      continue;
    }
    const ignored = await git(request.repoTop, ['check-ignore', '-q', '--', `${folder}/`]);
    if (ignored.code !== 0) {
      outcome.skipped.push(`${folder} (link: not ignored by git; the fork has its own copy)`);
      continue;
    }
    const target = path.join(request.worktree, folder);
    // Safe to drop: no stat: nothing is in the way of the link.
    if (await fs.lstat(target).catch(() => undefined)) {
      outcome.skipped.push(`${folder} (link: already exists in the worktree)`);
      continue;
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.symlink(source, target, 'dir');
    linked.push(folder);
    outcome.linked.push(folder);
  }
  return linked;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
