// fork/discard: stop the fork if it runs; remove its worktree, branch and folder.
import { forkDiscard } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { discardFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { requireForkId } from './requireForkId';

export function registerForkDiscard(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkDiscard, params => discardFork(ctx.forks, requireForkId(params)));
}
