// Fork lifecycle data shared by the runtime, the extension, the CLI and (later) the Forks panel.
import type { Usage } from './transcript';

export type ForkState = 'queued' | 'running' | 'waiting-for-approval' | 'completed' | 'failed' | 'cancelled' | 'interrupted';
export const TERMINAL_FORK_STATES: readonly ForkState[] = ['completed', 'failed', 'cancelled'];

/** Who started it: the user (chat command, palette, panel), the agent (Agent tool), or Fork from here. */
export type ForkOrigin = 'user' | 'agent' | 'message';
export type Isolation = 'shared' | 'worktree';
export type ChildKind = 'fork' | 'general-purpose' | 'explore';

export interface ForkSummary {
  id: string;
  kind: ChildKind;
  name: string;
  parentSessionId: string;
  parentEntryId?: string;
  origin: ForkOrigin;
  forkTurns: string;
  isolation: Isolation;
  root: string;
  directive: string;
  state: ForkState;
  createdAt: string;
  endedAt?: string;
  /** Model requests made so far. */
  modelTurns: number;
  usage: Usage;
  /** Usage of the fork's first request: its cache-read share shows the prefix sharing. */
  firstUsage?: Usage;
  report?: string;
  error?: string;
}

export function isTerminal(state: ForkState): boolean {
  return TERMINAL_FORK_STATES.includes(state);
}
