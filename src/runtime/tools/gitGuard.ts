// Writes that reach git's own files. `.git/config` can name programs git runs (core.fsmonitor,
// hooks, filters), and a worktree's `.git` file says where git looks for all of that; so a file tool writing
// under any `.git` folder or file needs the approval a shell command needs, never just an edit's.
import type { ToolCategory } from '../../common/approval';
import { resolveInsideRoot } from './pathGuard';
import { ToolError } from './types';
import type { ToolContext } from './types';

/** `.git` as any component, in any case and with the trailing dots/spaces Windows ignores. */
export function touchesGitDir(rel: string): boolean {
  return rel.split('/').some(part => /^\.git[. ]*$/i.test(part));
}

export const GIT_WRITE_NOTE = 'inside a .git folder or file, where a change can make git run programs';

/** For write_file/edit_file: 'exec' when the (resolved) path lies under `.git`, else 'edit'. */
export async function writeApprovalCategory(input: unknown, root: string): Promise<ToolCategory> {
  const userPath = input !== null && typeof input === 'object' ? (input as { path?: unknown }).path : undefined;
  if (typeof userPath !== 'string') return 'edit';
  if (touchesGitDir(userPath.replace(/\\/g, '/'))) return 'exec';
  try {
    return touchesGitDir((await resolveInsideRoot(root, userPath)).rel) ? 'exec' : 'edit';
  } catch {
    return 'edit'; // the tool itself refuses the path with its reason
  }
}

/** Checked by the tool on the path it is about to write, whatever was approved before. */
export function assertGitWriteAllowed(rel: string, ctx: ToolContext): void {
  if (touchesGitDir(rel) && !ctx.gitWritesAllowed) {
    throw new ToolError(`${rel} is ${GIT_WRITE_NOTE}; writing it needs the approval a shell command needs, and this call did not have it.`);
  }
}
