// What the fork manager and its helpers (runs, workspaces, the Agent tool, handlers) share: the access a
// client grants, the run cap and the errors. Kept apart from forkManager.ts so those helpers import no cycle.
import type { ApprovalMode } from '../../common/approval';
import type { Budget } from '../../common/budget';
import type { ProxySettings } from '../../common/protocol/runtime';
import type { WorktreeOptions } from '../../common/worktreeOptions';
import type { SandboxSettings } from '../../common/sandbox';
import type { CompactionSettings } from '../agent/compact';
import type { ProviderAccess } from '../model/providers';
import type { ForkSummary, Isolation } from '../../common/forks';
import type { ForkSpec } from './history/createFork';
import type { TournamentSummary } from '../../common/tournament';

export const MAX_FORK_REQUESTS = 200;

/**
 * The cap in force: MAX_FORK_REQUESTS, or FORK_AGENTS_MAX_FORK_REQUESTS (a positive whole number) so tests
 * can reach the cap in a handful of requests instead of waiting out 200. Read per run, so the runtime's
 * environment at start decides it.
 */
export function forkRequestCap(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env.FORK_AGENTS_MAX_FORK_REQUESTS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : MAX_FORK_REQUESTS;
}

export interface ModelAccess {
  apiKey: string;
  baseUrl?: string;
  approvalMode: ApprovalMode;
  /** Restricted Mode (an untrusted workspace): read tools only. */
  restricted?: boolean;
  /** The OS sandbox around commands (fork.sandbox*); absent: auto. */
  sandbox?: SandboxSettings;
  ripgrepPath?: string;
  worktreeRoot?: string;
  compaction?: CompactionSettings;
  /** Proxy for model requests (the configuring client's). */
  proxy?: ProxySettings;
  /** Bedrock or Vertex instead of the Anthropic API (docs/design.md §5); a fork keeps its starter's. */
  provider?: ProviderAccess;
  /** Ignored files, links, setup commands and ports of new worktrees. */
  worktree?: WorktreeOptions;
  /** fork.budget.perFork (a fork's default budget) and fork.budget.perChat (a chat and its forks together). */
  budgets?: { perFork?: Budget; perChat?: Budget };
  /** fork.maxForksPerTurn: Agent calls the model may make in one turn. */
  maxForksPerTurn?: number;
  /** fork.tournament.verify: tournaments' default verify command (absent: the detected test script). */
  tournamentVerify?: string;
}

export class ForkNotFoundError extends Error {}
export class BudgetError extends Error {}
export class ForkBusyError extends Error {}

/** What callers ask for: isolation may be left to the default (docs/design.md §4.8), the id is chosen here. */
export type StartSpec = Omit<ForkSpec, 'isolation' | 'id' | 'snapshot' | 'policy' | 'sandboxNotice'> & { isolation?: Isolation };

/** The part of the fork manager the Agent tool drives, so the tool's host does not import the manager. */
export interface ForkLauncher {
  start(spec: StartSpec, access: ModelAccess): Promise<ForkSummary>;
  cancel(forkId: string): boolean;
  wait(forkId: string): Promise<ForkSummary>;
  takeNotificationOf(forkId: string): void;
}

/**
 * What a tournament (a group of attempts) adds to its forks' runs, so the manager does not import the
 * tournament code: the verify command each runs when it ends, the group's one budget, and each end.
 */
export interface GroupHooks {
  verifyCommandOf(fork: ForkSummary): string | undefined;
  /** Why the attempt may not make another request because of its group's budget, if it may not. */
  budgetStopOf(fork: ForkSummary): string | undefined;
  /** The attempt ended, or paused at a budget. */
  attemptEnded(fork: ForkSummary): void;
}

/** What a tournament start asks for: N attempts of one fork spec. */
export interface TournamentStart {
  spec: Omit<StartSpec, 'model' | 'tournament' | 'isolation'>;
  attempts: number;
  models?: string[];
  verify?: string;
  differentApproaches?: boolean;
  /** One budget for all attempts together. */
  budget?: Budget;
}

/** The part of the tournament manager the Agent tool drives. */
export interface TournamentLauncher {
  start(request: TournamentStart, access: ModelAccess): Promise<{ group: TournamentSummary; attempts: ForkSummary[] }>;
  /** fork.tournament.verify, else the project's test script under `root`, else none. */
  defaultVerify(access: ModelAccess, root: string): string | undefined;
}
