// fork/wait: resolves with the fork's summary once it is completed, failed or cancelled; the waiting client
// may answer the fork's approvals meanwhile.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkWait } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkWait(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkWait, async params => {
    if (!ctx.forks.get(params?.forkId)) throw new ResponseError(ErrorCodes.InvalidParams, `No fork with id ${params?.forkId}.`);
    if (params.answerApprovals !== true) return ctx.forks.wait(params.forkId);
    // A terminal waiting for its fork answers that fork's questions (fork-agents fork --wait), as chat does.
    const stop = ctx.approvals.answerFor(params.forkId, client);
    try {
      return await ctx.forks.wait(params.forkId);
    } finally {
      stop();
    }
  });
}
