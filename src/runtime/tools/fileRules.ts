// One policy for every tool: in a sandboxed fork the file tools may not read what its shell cannot read
// (the deny list) nor write what its shell cannot write (the worktree's `.git` pointer), beyond the root
// confinement of pathGuard.ts. Checked on the resolved real path, after symlinks.
import * as path from 'node:path';
import { ToolError } from './types';
import type { ToolContext } from './types';

function under(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export function assertFileAllowed(abs: string, rel: string, ctx: ToolContext, access: 'read' | 'write'): void {
  const rules = ctx.fileRules;
  if (!rules) return;
  if (rules.denied.some(denied => under(denied, abs))) {
    throw new ToolError(`${rel} is on the fork sandbox's deny list (credentials, the runtime's store, fork.sandbox.denyRead): no tool may ${access} it.`);
  }
  if (access === 'write' && rules.readOnly.some(file => under(file, abs))) {
    throw new ToolError(`${rel} is read-only in the fork sandbox (it tells git where the repository is); no tool may change it.`);
  }
}
