// session/delete: deletes a chat session or a fork (never while it runs), then the sealed history that
// nothing references any more. Forks of a deleted chat keep what they inherited.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { RuntimeErrorCode, sessionDelete } from '../../common/protocol/runtime';
import type { DeleteParams, DeleteResult } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { DeleteRefusedError, deleteSession } from '../deletion';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerSessionDelete(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionDelete, async (params: DeleteParams): Promise<DeleteResult> => {
    const id = params?.forkId ?? params?.sessionId;
    if (typeof id !== 'string' || (params.forkId !== undefined && params.sessionId !== undefined)) {
      throw new ResponseError(ErrorCodes.InvalidParams, 'session/delete needs exactly one of sessionId or forkId.');
    }
    if (params.forkId !== undefined && !id.startsWith('f-')) throw new ResponseError(ErrorCodes.InvalidParams, `${id} is not a fork id.`);
    if (params.sessionId !== undefined && id.startsWith('f-')) throw new ResponseError(ErrorCodes.InvalidParams, `${id} is a fork: delete it with forkId.`);
    try {
      return await deleteSession(ctx, id, params.force === true);
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      if (error instanceof DeleteRefusedError) throw new ResponseError(RuntimeErrorCode.busy, error.message);
      throw error;
    }
  });
}
