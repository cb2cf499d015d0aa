// Writes to files that git, the editor or common tools run: `.git/config` can name
// programs git runs (core.fsmonitor, hooks, filters) and a worktree's `.git` file says where git looks for
// all of that; the hooks folder core.hooksPath names (`.husky/`, say) runs at the user's next commit;
// `.vscode/tasks.json` can run a task when the folder opens, `.vscode/settings.json` and `*.code-workspace`
// name programs the editor and its extensions start, `.vscode/mcp.json` starts servers, `.devcontainer/`
// builds and runs containers, `.envrc` runs in direnv's shell, `.gitattributes` / `.gitmodules` /
// `.lfsconfig` pick drivers and commands git runs. A file tool writing any of them needs the approval a
// shell command needs, never just an edit's (SECURITY.md lists them).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ToolCategory } from '../../common/approval';
import { git } from '../git/run';
import { resolveInsideRoot } from './pathGuard';
import { ToolError } from './types';
import type { ToolContext } from './types';

/** `.git` as any component, in any case and with the trailing dots/spaces Windows ignores. */
export function touchesGitDir(rel: string): boolean {
  return rel.split('/').some(part => /^\.git[. ]*$/i.test(part));
}

export const GIT_WRITE_NOTE = 'inside a .git folder or file, or another file git, the editor or a common tool runs (SECURITY.md lists them)';

/** Names compared without case and without the trailing dots/spaces Windows ignores. */
const norm = (part: string) => part.toLowerCase().replace(/[. ]+$/, '');

/** Why writing `rel` (relative to `root`, '/'-separated) can make something run; undefined for an ordinary file. */
export async function executableReason(rel: string, root: string): Promise<string | undefined> {
  const parts = rel.split('/').filter(p => p !== '' && p !== '.').map(norm);
  const name = parts[parts.length - 1] ?? '';
  if (touchesGitDir(rel)) return 'inside a .git folder or file, where a change can make git run programs';
  if (parts.some(p => p === '.vscode') && ['tasks.json', 'settings.json', 'mcp.json', 'launch.json'].includes(name)) {
    return `.vscode/${name}, which can make the editor run tasks, programs or MCP servers`;
  }
  if (name.endsWith('.code-workspace')) return 'a workspace file, whose settings and tasks the editor runs';
  if (parts.includes('.devcontainer') || name === '.devcontainer.json') return 'dev container configuration, which builds and runs containers and commands';
  if (name === '.envrc') return '.envrc, which direnv runs in the shell';
  if (['.gitattributes', '.gitmodules', '.lfsconfig'].includes(name)) return `${name}, which selects drivers and commands git runs`;
  const hooks = await hooksFolder(root);
  if (hooks) {
    const relative = path.relative(hooks, path.join(root, ...rel.split('/')));
    if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) return 'in the hooks folder core.hooksPath names, whose scripts git runs';
  }
  return undefined;
}

/** Where git takes hooks from in `root` when the repository's or user's config moves them (core.hooksPath). */
async function hooksFolder(root: string): Promise<string | undefined> {
  // Our own calls pass core.hooksPath=/dev/null on the command line: that scope is left out.
  const scoped = await git(root, ['config', '--show-scope', '--get-all', 'core.hooksPath']).catch(() => undefined);
  const values = (scoped?.stdout ?? '').split('\n').map(line => line.split('\t')).filter(([scope, value]) => scope !== 'command' && value);
  const value = values[values.length - 1]?.[1]?.trim();
  if (!value) return undefined;
  if (path.isAbsolute(value)) return realOrSelf(value);
  // A relative hooksPath is taken from the top of the working tree, where hooks run.
  const top = (await git(root, ['rev-parse', '--show-toplevel']).catch(() => undefined))?.stdout.trim();
  return realOrSelf(path.resolve(top || root, value));
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** For write_file/edit_file: 'exec' when the (resolved) path is one of those files, else 'edit'. */
export async function writeApprovalCategory(input: unknown, root: string): Promise<ToolCategory> {
  const userPath = input !== null && typeof input === 'object' ? (input as { path?: unknown }).path : undefined;
  if (typeof userPath !== 'string') return 'edit';
  if (touchesGitDir(userPath.replace(/\\/g, '/'))) return 'exec';
  try {
    const resolved = await resolveInsideRoot(root, userPath);
    return (await executableReason(resolved.rel, resolved.root)) ? 'exec' : 'edit';
  } catch {
    return 'edit'; // the tool itself refuses the path with its reason
  }
}

/** Checked by the tool on the path it is about to write, whatever was approved before. */
export async function assertGitWriteAllowed(rel: string, root: string, ctx: ToolContext): Promise<void> {
  if (ctx.gitWritesAllowed) return;
  const reason = await executableReason(rel, root);
  if (reason) throw new ToolError(`${rel} is ${reason}; writing it needs the approval a shell command needs, and this call did not have it.`);
}
