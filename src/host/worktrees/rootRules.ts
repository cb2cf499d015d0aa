// When a worktree fork's folder belongs in the workspace (`fork.worktree.addToWorkspace`), as pure
// functions of the fork and its events, so the rules are unit-tested without VS Code. A fork that only
// reads has nothing to show in the Explorer; its folder is one more copy of the project.
import type { AgentEvent } from '../../common/agentEvents';
import type { ForkSummary } from '../../common/forks';

/** always: every worktree fork gets a root; onWrite: once one of its tools may have changed files; never. */
export type RootsMode = 'always' | 'onWrite' | 'never';
export const ROOTS_MODES: readonly RootsMode[] = ['always', 'onWrite', 'never'];
export const DEFAULT_ROOTS_MODE: RootsMode = 'onWrite';

export function rootsModeOf(value: unknown): RootsMode {
  return ROOTS_MODES.includes(value as RootsMode) ? (value as RootsMode) : DEFAULT_ROOTS_MODE;
}

/** Applied, kept or discarded: the user has dealt with the fork, so its folder leaves the workspace. */
export function isSettled(fork: ForkSummary): boolean {
  const worktree = fork.worktree;
  return worktree !== undefined && (worktree.discarded === true || worktree.appliedAt !== undefined || worktree.keptAt !== undefined);
}

/** The fork was applied or kept since `before` (the summary seen last): the moment its root goes. */
export function becameSettled(before: ForkSummary | undefined, now: ForkSummary): boolean {
  if (!before || !now.worktree) return false;
  const was = before.worktree;
  return (now.worktree.appliedAt !== undefined && now.worktree.appliedAt !== was?.appliedAt) ||
    (now.worktree.keptAt !== undefined && now.worktree.keptAt !== was?.keptAt);
}

/**
 * Follows each fork's tool calls: `wrote` answers true once a tool that edits or runs commands (write,
 * edit, bash, a writing MCP tool) has finished without error. Read-only tools never count.
 */
export class WriteWatch {
  private readonly pending = new Map<string, Set<string>>();

  wrote(forkId: string, event: AgentEvent): boolean {
    if (event.type === 'tool_call') {
      if (event.category !== 'read') this.calls(forkId).add(event.callId);
      return false;
    }
    if (event.type !== 'tool_result') return false;
    const calls = this.pending.get(forkId);
    if (!calls?.delete(event.callId)) return false;
    return !event.isError;
  }

  forget(forkId: string): void {
    this.pending.delete(forkId);
  }

  private calls(forkId: string): Set<string> {
    let calls = this.pending.get(forkId);
    if (!calls) this.pending.set(forkId, (calls = new Set()));
    return calls;
  }
}
