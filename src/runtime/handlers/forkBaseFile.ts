// fork/baseFile: one file as it was at a worktree fork's base (the left side of its diff in the editor).
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { forkBaseFile } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { baseFileOfFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { requireForkId } from './requireForkId';

export function registerForkBaseFile(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkBaseFile, async params => {
    const forkId = requireForkId(params);
    if (typeof params.path !== 'string' || params.path === '') throw new ResponseError(ErrorCodes.InvalidParams, 'fork/baseFile needs a path.');
    return baseFileOfFork(ctx.forks, forkId, params.path);
  });
}
