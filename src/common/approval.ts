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
