// What the fork manager and its helpers (runs, workspaces, the Agent tool, handlers) share: the access a
// client grants, the run cap and the errors. Kept apart from forkManager.ts so those helpers import no cycle.
import type { ApprovalMode } from '../../common/approval';
import type { Budget } from '../../common/budget';
import type { ProxySettings } from '../../common/protocol/runtime';
import type { WorktreeOptions } from '../../common/worktreeOptions';
import type { CompactionSettings } from '../agent/compact';
import type { ProviderAccess } from '../model/providers';
import type { ForkSummary, Isolation } from '../../common/forks';
import type { ForkSpec } from './history/createFork';

export const MAX_FORK_REQUESTS = 200;

export interface ModelAccess {
  apiKey: string;
  baseUrl?: string;
  approvalMode: ApprovalMode;
  /** Restricted Mode (an untrusted workspace): read tools only. */
  restricted?: boolean;
  ripgrepPath?: string;
  worktreeRoot?: string;
  compaction?: CompactionSettings;
  /** Proxy for model requests (the configuring client's). */
  proxy?: ProxySettings;
  /** Bedrock or Vertex instead of the Anthropic API (DESIGN §5); a fork keeps its starter's. */
  provider?: ProviderAccess;
  /** Ignored files, links, setup commands and ports of new worktrees (issue 13). */
  worktree?: WorktreeOptions;
  /** fork.budget.perFork (a fork's default budget) and fork.budget.perChat (a chat and its forks together). */
  budgets?: { perFork?: Budget; perChat?: Budget };
  /** fork.maxForksPerTurn: Agent calls the model may make in one turn. */
  maxForksPerTurn?: number;
}

export class ForkNotFoundError extends Error {}
export class BudgetError extends Error {}
export class ForkBusyError extends Error {}
/** A fork on another model whose inherited settings (effort, thinking budget) that model does not take. */
export class ForkModelError extends Error {}

/** What callers ask for: isolation may be left to the default (DESIGN §4.8), the id is chosen here. */
export type StartSpec = Omit<ForkSpec, 'isolation' | 'id' | 'snapshot' | 'policy'> & { isolation?: Isolation };

/** The part of the fork manager the Agent tool drives, so the tool's host does not import the manager. */
export interface ForkLauncher {
  start(spec: StartSpec, access: ModelAccess): Promise<ForkSummary>;
  cancel(forkId: string): boolean;
  wait(forkId: string): Promise<ForkSummary>;
  takeNotificationOf(forkId: string): void;
}
