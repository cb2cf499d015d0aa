// What every protocol handler may use. Built once in server.ts.
import { DEFAULT_AUTO_COMPACT_AT } from './agent/compact';
import type { RuntimeInfo } from '../common/protocol/runtime';
import { parseBudget } from '../common/budget';
import type { ApprovalRouter } from './approvals';
import type { ClientConnection } from './clientConnection';
import type { ForkManager } from './fork/forkManager';
import type { TournamentManager } from './fork/tournament/tournamentManager';
import type { ModelAccess } from './fork/forkContracts';
import type { ProviderAccess } from './model/providers';
import type { SessionStore } from './session/sessionStore';
import type { TurnRegistry } from './turns';

export interface RuntimeContext {
  store: SessionStore;
  turns: TurnRegistry;
  forks: ForkManager;
  tournaments: TournamentManager;
  approvals: ApprovalRouter;
  clients: Set<ClientConnection>;
  info: RuntimeInfo;
  /** This runtime's secret: what a client must present at `initialize`. */
  token: string;
  /** A client presented the token: it gets every handler and counts as connected. */
  admit(client: ClientConnection): void;
  /** Stops this runtime (sockets closed, files flushed). */
  stop(why: string): void;
}

/** The model access a client configured, for the turns and forks it starts. */
export function accessOf(client: ClientConnection): ModelAccess | undefined {
  const { apiKey, baseUrl, approvalMode, ripgrepPath, worktreeRoot, worktree, contextWindow, autoCompactAt, restricted, budgetPerFork, budgetPerChat, maxForksPerTurn, proxy, provider, bedrock, vertex, sandbox, tournamentVerify } = client.config;
  const compaction = {
    // Unset: each session measures against its model's window (model table, see compact.ts contextWindowFor).
    ...(contextWindow && contextWindow > 0 ? { contextWindow } : {}),
    autoCompactAt: autoCompactAt && autoCompactAt > 0 && autoCompactAt <= 1 ? autoCompactAt : DEFAULT_AUTO_COMPACT_AT,
  };
  const budget = (text: string | undefined) => {
    const parsed = text ? parseBudget(text) : undefined;
    return parsed?.ok ? parsed.value : undefined;
  };
  const budgets = { perFork: budget(budgetPerFork), perChat: budget(budgetPerChat) };
  const perTurn = maxForksPerTurn && maxForksPerTurn > 0 ? Math.floor(maxForksPerTurn) : undefined;
  const cloud: ProviderAccess | undefined =
    provider === 'bedrock' ? { name: 'bedrock', ...bedrock } : provider === 'vertex' ? { name: 'vertex', ...vertex } : undefined;
  // Bedrock and Vertex authenticate with the cloud's own credentials: no Anthropic key needed.
  if (!apiKey && !cloud) return undefined;
  const access: ModelAccess = {
    apiKey: apiKey ?? '', baseUrl, approvalMode: approvalMode ?? 'ask', ripgrepPath, worktreeRoot, worktree, compaction, budgets, maxForksPerTurn: perTurn,
    ...(proxy?.url ? { proxy } : {}), ...(cloud ? { provider: cloud } : {}),
    ...(tournamentVerify?.trim() ? { tournamentVerify: tournamentVerify.trim() } : {}),
  };
  if (restricted === true) access.restricted = true;
  if (sandbox) access.sandbox = sandbox;
  return access;
}

