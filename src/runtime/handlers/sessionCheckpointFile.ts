// session/checkpointFile: one file as a session's checkpoint recorded it (the left side of "Diff since here").
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { sessionCheckpointFile } from '../../common/protocol/checkpoints';
import { checkpointFile, TurnFilesError } from '../checkpoint/turnFiles';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerSessionCheckpointFile(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionCheckpointFile, async params => {
    const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);
    for (const key of ['sessionId', 'tree', 'path'] as const) {
      if (typeof params?.[key] !== 'string' || params[key] === '') throw invalid(`session/checkpointFile needs a ${key} string.`);
    }
    try {
      return await ctx.store.using(params.sessionId, session => checkpointFile(ctx.store.storeDir, session, params.tree, params.path));
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof TurnFilesError) throw invalid(error.message);
      throw error;
    }
  });
}
