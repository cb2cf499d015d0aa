// Fork messages of the runtime protocol (DESIGN §2, §4.7).
import type { AgentEvent } from '../agentEvents';
import type { ForkSummary } from '../forks';
import { notification, request } from './descriptor';

export interface ForkStartParams {
  sessionId: string;
  directive: string;
  /** Validated by the one fork_turns parser; omitted means "all". */
  forkTurns?: unknown;
  /** Fork from this entry (Fork from here); absent: from everything committed so far. */
  atEntryId?: string;
  isolation?: 'shared' | 'worktree';
  origin?: 'user' | 'message';
  name?: string;
}
export const forkStart = request<ForkStartParams, ForkSummary>('fork/start');

export const forkList = request<{ parentSessionId?: string }, { forks: ForkSummary[] }>('fork/list');
export const forkCancel = request<{ forkId: string }, { cancelled: boolean }>('fork/cancel');
/** Continues a finished fork's own transcript with a new message (never re-reads the parent). */
export const forkSend = request<{ forkId: string; message: string }, ForkSummary>('fork/send');
/** Resolves once the fork is completed, failed or cancelled. */
export const forkWait = request<{ forkId: string }, ForkSummary>('fork/wait');

/** Streaming output of a fork, to every connected client. */
export const forkEvent = notification<{ forkId: string; event: AgentEvent }>('fork/event');
/** A fork's summary whenever its state, turns or usage change. */
export const forkState = notification<{ fork: ForkSummary }>('fork/state');
