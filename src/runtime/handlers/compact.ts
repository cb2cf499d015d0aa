// session/compact: `/compact [focus]` and `fork-agents compact`. Runs as the session's turn, so it never
// overlaps one; on failure nothing changes and the error says so.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { RuntimeErrorCode, sessionCompact } from '../../common/protocol/runtime';
import type { CompactParams, CompactResult } from '../../common/protocol/runtime';
import { compactSession } from '../agent/compact';
import type { ClientConnection } from '../clientConnection';
import { createAnthropicClient } from '../model/lazyClient';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import type { SessionLease } from '../session/sessionStore';
import type { ModelAccess } from '../fork/forkContracts';
import type { Session } from '../session/session';
import { MISSING_KEY_MESSAGE } from './send';

export function registerCompact(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionCompact, async (params: CompactParams): Promise<CompactResult> => {
    const access = accessOf(client);
    if (!access) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
    let lease: SessionLease;
    lease = await ctx.store.hold(params.sessionId);
    try {
      return await compactIn(ctx, lease.session, access, params);
    } finally {
      lease.release();
    }
  });
}

async function compactIn(ctx: RuntimeContext, session: Session, access: ModelAccess, params: CompactParams): Promise<CompactResult> {
  if (ctx.turns.isRunning(session.id)) {
    throw new ResponseError(ErrorCodes.InvalidRequest, 'A turn is running in this session; compact after it ends.');
  }
  const model = createAnthropicClient(access);
  // Someone waits on this answer: fewer retries than a turn makes (which shows each one).
  const retry = { maxRetries: MANUAL_COMPACT_RETRIES };
  const outcome = await ctx.turns.run(session.id, signal => compactSession(session, model, signal, { focus: params.focus?.trim() || undefined, retry }));
  if (!outcome.ok) throw new ResponseError(RuntimeErrorCode.compactFailed, outcome.error.message, { kind: outcome.error.kind });
  return { summaryEntryId: outcome.entry.id, tokensBefore: outcome.tokensBefore, usage: outcome.usage };
}

export const MANUAL_COMPACT_RETRIES = 2;
