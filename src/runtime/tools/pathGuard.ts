// Keeps every file tool inside the session root: a fork in a worktree must not touch the main tree,
// so `..` escapes, foreign absolute paths and symlinks leading out are all refused. This decides what a
// path means; rootedFs.ts opens it without trusting that the tree stayed the same since.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errorCode } from './fsErrors';
import { ToolError } from './types';

export interface ResolvedPath {
  /** Absolute path with every existing symlink resolved; operate on this, not on the user's text. */
  abs: string;
  /** Root-relative path with forward slashes; '.' for the root itself. */
  rel: string;
  /** The session root's real path; rootedFs opens `rel` relative to it. */
  root: string;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Resolves a root-relative or absolute path, refusing anything that is or leads outside `root`. */
export async function resolveInsideRoot(root: string, userPath: string): Promise<ResolvedPath> {
  if (typeof userPath !== 'string' || userPath.trim() === '') throw new ToolError('Path is empty.');
  if (userPath.includes('\0')) throw new ToolError('Path contains a NUL byte.');

  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch {
    throw new ToolError(`The session root ${root} is not accessible.`);
  }
  const outside = (how: string) =>
    new ToolError(`Path "${userPath}" ${how}, outside the session root ${realRoot}; tools can only access files inside it.`);

  const candidate = path.isAbsolute(userPath) ? path.resolve(userPath) : path.resolve(realRoot, userPath);

  // Find the deepest ancestor that exists (lstat: a dangling symlink counts as existing, see below).
  let existing = candidate;
  const missing: string[] = [];
  for (;;) {
    try {
      await fs.lstat(existing);
      break;
    } catch (err) {
      const code = errorCode(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new ToolError(`Cannot access "${userPath}": ${(err as Error).message}`);
      const parent = path.dirname(existing);
      if (parent === existing) break;
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }

  let realExisting: string;
  try {
    realExisting = await fs.realpath(existing);
  } catch {
    // A dangling symlink: writing through it would create its target, wherever that is.
    throw new ToolError(`Path "${userPath}" goes through a symbolic link whose target does not exist.`);
  }

  const abs = path.join(realExisting, ...missing);
  if (!isInside(realRoot, abs)) {
    const lexicallyInside = isInside(realRoot, candidate) || isInside(path.resolve(root), candidate);
    throw outside(lexicallyInside ? `leads through a symbolic link to ${abs}` : `resolves to ${abs}`);
  }
  const rel = path.relative(realRoot, abs);
  return { abs, rel: rel === '' ? '.' : rel.split(path.sep).join('/'), root: realRoot };
}
