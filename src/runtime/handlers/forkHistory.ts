// fork/history: a fork's output so far, for a window that opens (or reloads) while it runs.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkHistory } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkHistory(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkHistory, params => {
    if (!ctx.forks.get(params?.forkId)) throw new ResponseError(ErrorCodes.InvalidParams, `No fork with id ${params?.forkId}.`);
    return ctx.forks.history(params.forkId);
  });
}
