// A VS Code chat ↔ a runtime session. The chat keeps no state of ours except what we stamp
// into each ChatResult.metadata; reading it back from the history tells which session to continue and
// where its transcript must end — so when the user edits or removes earlier requests, the runtime
// rewinds to the last response still shown and the model never sees turns the user no longer sees.
// Pure: history turns are read as plain objects.
import type { Usage } from '../../common/transcript';

export interface ChatSessionMetadata {
  sessionId: string;
  promptEntryId?: string;
  lastEntryId?: string;
  /** Usage of the turn's last model request (context size, cache reads), for display. */
  usage?: Usage;
}

/** What `session/send` needs to continue the chat; empty for a new session. */
export interface Continuation {
  sessionId?: string;
  afterEntryId?: string;
}

export function isChatSessionMetadata(value: unknown): value is ChatSessionMetadata {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return typeof m.sessionId === 'string' && m.sessionId !== ''
    && (m.promptEntryId === undefined || typeof m.promptEntryId === 'string')
    && (m.lastEntryId === undefined || typeof m.lastEntryId === 'string');
}

/** The last response turn of ours that carries session metadata decides; none means a new session. */
export function continuationFrom(history: readonly unknown[], participantId: string): Continuation {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i] as { participant?: unknown; result?: { metadata?: unknown } } | undefined;
    if (!turn || typeof turn !== 'object' || !('result' in turn)) continue;
    if (turn.participant !== undefined && turn.participant !== participantId) continue;
    const metadata = turn.result?.metadata;
    if (isChatSessionMetadata(metadata)) return { sessionId: metadata.sessionId, afterEntryId: metadata.lastEntryId };
  }
  return {};
}

/** Metadata for a response; undefined when no session is known (nothing to continue). */
export function sessionMetadata(parts: Partial<ChatSessionMetadata>): ChatSessionMetadata | undefined {
  if (!parts.sessionId) return undefined;
  const metadata: ChatSessionMetadata = { sessionId: parts.sessionId };
  if (parts.promptEntryId) metadata.promptEntryId = parts.promptEntryId;
  if (parts.lastEntryId) metadata.lastEntryId = parts.lastEntryId;
  if (parts.usage) metadata.usage = parts.usage;
  return metadata;
}
