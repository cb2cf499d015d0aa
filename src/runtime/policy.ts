// What a turn or fork may do without asking (issue 11): the approval mode, and Restricted Mode (an
// untrusted workspace: reading only). A fork records both at launch; revival is never looser than that.
import type { ApprovalMode } from '../common/approval';
import type { WorktreeOptions } from '../common/worktreeOptions';

/** Loosest first. */
const ORDER: readonly ApprovalMode[] = ['auto', 'auto-edit', 'ask'];

export interface LaunchPolicy {
  approvalMode: ApprovalMode;
  /** The workspace was in Restricted Mode: tools that write or run commands are refused. */
  restricted?: boolean;
}

/** The policy of a client's model access (its approval mode, and Restricted Mode when set). */
export function launchPolicy(access: { approvalMode: ApprovalMode; restricted?: boolean }): LaunchPolicy {
  return access.restricted ? { approvalMode: access.approvalMode, restricted: true } : { approvalMode: access.approvalMode };
}

export function stricterMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** The policy a revived fork runs with: the reviving client's, but never looser than the launch record (absent: ask). */
export function revivalPolicy(recorded: LaunchPolicy | undefined, current: LaunchPolicy): LaunchPolicy {
  const approvalMode = stricterMode(recorded?.approvalMode ?? 'ask', current.approvalMode);
  const restricted = recorded?.restricted === true || current.restricted === true;
  return restricted ? { approvalMode, restricted } : { approvalMode };
}

export const RESTRICTED_REASON =
  'the workspace is in Restricted Mode: trust it to let the agent write files or run commands';

type Approve<R> = (request: R) => Promise<{ approved: boolean; reason?: string; unanswered?: boolean }>;

/**
 * The loop's approval mode and callback under a policy. In Restricted Mode every call that is not a read
 * goes to the callback (mode `ask`), which refuses it without asking anyone.
 */
export function applyPolicy<R>(policy: LaunchPolicy, approve: Approve<R>): { approvalMode: ApprovalMode; approve: Approve<R> } {
  if (!policy.restricted) return { approvalMode: policy.approvalMode, approve };
  return { approvalMode: 'ask', approve: async () => ({ approved: false, reason: RESTRICTED_REASON, unanswered: true }) };
}

/** A new worktree's preparation under a policy: Restricted Mode runs no code, so no setup commands (npm ci runs the repository's scripts). */
export function worktreeOptionsUnder(policy: LaunchPolicy, options: WorktreeOptions | undefined): WorktreeOptions | undefined {
  return policy.restricted ? { ...options, setup: [] } : options;
}
