// session/diffSince: what changed from a turn's start checkpoint to the work tree now ("Diff since here").
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { sessionDiffSince } from '../../common/protocol/checkpoints';
import { diffSince, TurnFilesError } from '../checkpoint/turnFiles';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerSessionDiffSince(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionDiffSince, async params => {
    const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);
    if (typeof params?.sessionId !== 'string') throw invalid('session/diffSince needs a sessionId string.');
    if (params.startEntryId !== null && typeof params.startEntryId !== 'string') throw invalid('startEntryId must be a string or null.');
    try {
      return await ctx.store.using(params.sessionId, session => diffSince(ctx.store.storeDir, session, params.startEntryId));
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof TurnFilesError) throw invalid(error.message);
      throw error;
    }
  });
}
