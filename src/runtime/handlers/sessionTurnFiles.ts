// session/turnFiles: the files each turn of a session changed, from its start and end checkpoints
// (checkpoint/turnFiles.ts); the Forks panel lists them under the turn.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { sessionTurnFiles } from '../../common/protocol/checkpoints';
import { turnFiles } from '../checkpoint/turnFiles';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerSessionTurnFiles(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionTurnFiles, async params => {
    if (typeof params?.sessionId !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, 'session/turnFiles needs a sessionId string.');
    try {
      return { turns: await ctx.store.using(params.sessionId, session => turnFiles(ctx.store.storeDir, session)) };
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
  });
}
