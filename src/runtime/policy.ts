// What a turn or fork may do without asking: the approval mode, and Restricted Mode (an
// untrusted workspace: reading only). A fork records both at launch; revival is never looser than that.
import type { ApprovalMode } from '../common/approval';
import type { WorktreeOptions } from '../common/worktreeOptions';
import { DEFAULT_SANDBOX, stricterSandbox } from '../common/sandbox';
import type { SandboxSettings } from '../common/sandbox';

/** Loosest first. */
const ORDER: readonly ApprovalMode[] = ['auto', 'auto-edit', 'ask'];

export interface LaunchPolicy {
  approvalMode: ApprovalMode;
  /** The workspace was in Restricted Mode: tools that write or run commands are refused. */
  restricted?: boolean;
  /** The OS sandbox around its commands (absent in records made before sandboxing: the client's then). */
  sandbox?: SandboxSettings;
}

/** The policy of a client's model access (its approval mode, Restricted Mode when set, its sandbox). */
export function launchPolicy(access: { approvalMode: ApprovalMode; restricted?: boolean; sandbox?: SandboxSettings }): LaunchPolicy {
  const sandbox = access.sandbox ?? DEFAULT_SANDBOX;
  return access.restricted ? { approvalMode: access.approvalMode, restricted: true, sandbox } : { approvalMode: access.approvalMode, sandbox };
}

export function stricterMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** The policy a revived fork runs with: the reviving client's, but never looser than the launch record (absent: ask). */
export function revivalPolicy(recorded: LaunchPolicy | undefined, current: LaunchPolicy): LaunchPolicy {
  const approvalMode = stricterMode(recorded?.approvalMode ?? 'ask', current.approvalMode);
  const restricted = recorded?.restricted === true || current.restricted === true;
  const sandbox = stricterSandbox(recorded?.sandbox, current.sandbox ?? DEFAULT_SANDBOX);
  return restricted ? { approvalMode, restricted, sandbox } : { approvalMode, sandbox };
}

/**
 * A continued fork (fork/send) runs with the sender's access, its approval mode capped by the launch record
 * unless the user explicitly confirmed loosening it; Restricted Mode, recorded or current, always holds.
 */
export function sendPolicy<A extends { approvalMode: ApprovalMode; restricted?: boolean }>(recorded: LaunchPolicy | undefined, access: A, loosen: boolean): A {
  const capped = revivalPolicy(recorded, launchPolicy(access));
  return { ...access, approvalMode: loosen ? access.approvalMode : capped.approvalMode, restricted: capped.restricted };
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
