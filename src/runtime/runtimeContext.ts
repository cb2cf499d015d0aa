// What every protocol handler may use. Built once in server.ts.
import type { RuntimeInfo } from '../common/protocol/runtime';
import type { ApprovalRouter } from './approvals';
import type { ClientConnection } from './clientConnection';
import type { ForkManager, ModelAccess } from './fork/forkManager';
import type { SessionStore } from './session/sessionStore';
import type { TurnRegistry } from './turns';

export interface RuntimeContext {
  store: SessionStore;
  turns: TurnRegistry;
  forks: ForkManager;
  approvals: ApprovalRouter;
  clients: Set<ClientConnection>;
  info: RuntimeInfo;
}

/** The model access a client configured, for the turns and forks it starts. */
export function accessOf(client: ClientConnection): ModelAccess | undefined {
  const { apiKey, baseUrl, approvalMode, ripgrepPath } = client.config;
  return apiKey ? { apiKey, baseUrl, approvalMode: approvalMode ?? 'ask', ripgrepPath } : undefined;
}

