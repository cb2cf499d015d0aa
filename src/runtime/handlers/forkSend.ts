// fork/send: continue a finished fork's own transcript with a message.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { forkSend } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { ForkBusyError, ForkNotFoundError } from '../fork/forkManager';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { checkTextSize } from './textLimits';

export function registerForkSend(ctx: RuntimeContext, client: ClientConnection): void {
  client.rpc.onRequest(forkSend.method, (params: { forkId: string; message: string }) => {
    if (typeof params?.message !== 'string' || params.message.trim() === '') {
      throw new ResponseError(ErrorCodes.InvalidParams, 'fork/send needs a non-empty message.');
    }
    checkTextSize('message', params.message);
    try {
      return ctx.forks.send(params.forkId, params.message, accessOf(client));
    } catch (error) {
      if (error instanceof ForkNotFoundError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      if (error instanceof ForkBusyError) throw new ResponseError(ErrorCodes.InvalidRequest, error.message);
      throw error;
    }
  });
}
