// worktree/list: what start-up pruning removed, and the orphaned fork worktrees it kept for their
// unapplied changes; with a root, that repository is pruned first (the host passes its workspace folders).
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { worktreeList } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerWorktreeList(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(worktreeList, params => {
    if (params?.root !== undefined && typeof params.root !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, 'root must be a folder path.');
    return ctx.forks.janitor.list(params?.root);
  });
}
