// fork/apply: a finished worktree fork's changes onto the main working tree as uncommitted changes.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkApply } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { applyFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { requireForkId } from './requireForkId';

export function registerForkApply(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkApply, async params => {
    const forkId = requireForkId(params);
    const mode = params.onConflict ?? 'refuse';
    if (mode !== 'refuse' && mode !== 'markers') throw new ResponseError(ErrorCodes.InvalidParams, 'onConflict must be "refuse" or "markers".');
    return applyFork(ctx.forks, forkId, mode);
  });
}
