// session/delete: deletes a chat session or a fork (never while it runs), then the sealed history that
// nothing references any more. Forks of a deleted chat keep what they inherited.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { sessionDelete } from '../../common/protocol/runtime';
import type { DeleteParams, DeleteResult } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { deleteSession } from '../deletion';
import type { RuntimeContext } from '../runtimeContext';

export function registerSessionDelete(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionDelete, async (params: DeleteParams): Promise<DeleteResult> => {
    const id = params?.forkId ?? params?.sessionId;
    if (typeof id !== 'string' || (params.forkId !== undefined && params.sessionId !== undefined)) {
      throw new ResponseError(ErrorCodes.InvalidParams, 'session/delete needs exactly one of sessionId or forkId.');
    }
    if (params.forkId !== undefined && !id.startsWith('f-')) throw new ResponseError(ErrorCodes.InvalidParams, `${id} is not a fork id.`);
    if (params.sessionId !== undefined && id.startsWith('f-')) throw new ResponseError(ErrorCodes.InvalidParams, `${id} is a fork: delete it with forkId.`);
    return deleteSession(ctx, id, params.force === true);
  });
}
