// fork/wait: resolves with the fork's summary once it is completed, failed or cancelled.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkWait } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkWait(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkWait, params => {
    if (!ctx.forks.get(params?.forkId)) throw new ResponseError(ErrorCodes.InvalidParams, `No fork with id ${params?.forkId}.`);
    return ctx.forks.wait(params.forkId);
  });
}
