// Approval modes: which tool categories need the user's consent.

export type ApprovalMode = 'ask' | 'auto-edit' | 'auto';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'auto-edit', 'auto'];

/** read: never asks; edit: writes and edits; exec: shell commands. */
export type ToolCategory = 'read' | 'edit' | 'exec';

export function needsApproval(mode: ApprovalMode, category: ToolCategory): boolean {
  if (category === 'read' || mode === 'auto') return false;
  if (mode === 'auto-edit') return category === 'exec';
  return true;
}

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === 'string' && (APPROVAL_MODES as readonly string[]).includes(value);
}

/** The least permissive --approval that runs this kind of call without asking: auto-edit still asks before commands. */
export function modeThatAllows(category: ToolCategory): string {
  return category === 'exec' ? '--approval auto (it allows commands)' : '--approval auto-edit (it allows file edits)';
}
