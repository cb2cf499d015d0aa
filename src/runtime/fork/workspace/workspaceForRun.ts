// The workspace of one fork run (forkWorkspace.ts) wired to the fork manager: the parent's root from its
// header, the worktree options under the run's policy, summary changes broadcast, a failed preparation
// stopping the run.
import type { AgentEvent } from '../../../common/agentEvents';
import type { ForkSummary } from '../../../common/forks';
import type { LaunchPolicy } from '../../policy';
import { worktreeOptionsUnder } from '../../policy';
import type { Session } from '../../session/session';
import type { SessionStore } from '../../session/sessionStore';
import type { WorktreeOptions } from '../../../common/worktreeOptions';
import type { PortBlocks } from './forkPorts';
import type { ForkRun } from '../trackedFork';
import { ForkWorkspace } from './forkWorkspace';
import type { CommandSandbox } from '../../tools/types';

export interface WorkspaceForRunDeps {
  store: SessionStore;
  ports: PortBlocks;
  policy: LaunchPolicy;
  options?: WorktreeOptions;
  emit(event: AgentEvent): void;
  /** The summary changed: tell the clients. */
  changed(): void;
  controller: AbortController;
  sandbox?: CommandSandbox;
}

export function workspaceForRun(run: ForkRun, session: Session, deps: WorkspaceForRunDeps): ForkWorkspace {
  return new ForkWorkspace({
    summary: run.summary, session, parentRoot: parentRootOf(deps.store, run.summary),
    options: worktreeOptionsUnder(deps.policy, deps.options), ports: deps.ports, emit: deps.emit, signal: deps.controller.signal,
    changed: patch => {
      Object.assign(run.summary, patch);
      deps.changed();
    },
    failed: () => deps.controller.abort(),
    sandbox: deps.sandbox,
  });
}

/** The parent session's root, for FORK_AGENTS_PARENT_ROOT (its repository's top when the parent is gone). */
function parentRootOf(store: SessionStore, summary: ForkSummary): string {
  // The header alone: a deleted or evicted parent is not streamed in for one path.
  return store.headerOf(summary.parentSessionId)?.root ?? summary.worktree?.repoRoot ?? summary.root;
}
