// fork/announce: the one window that asks first tells the user a fork's run ended; later askers stay quiet.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkAnnounce } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkAnnounce(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkAnnounce, async params => {
    if (!ctx.forks.get(params?.forkId)) throw new ResponseError(ErrorCodes.InvalidParams, `No fork with id ${params?.forkId}.`);
    return { first: await ctx.forks.claimAnnouncement(params.forkId) };
  });
}
