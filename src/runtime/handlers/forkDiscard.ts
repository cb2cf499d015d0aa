// fork/discard: stop the fork if it runs; remove its worktree, branch and folder.
import { forkDiscard } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { discardFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { mappingErrors, requireForkId } from './worktreeErrors';

export function registerForkDiscard(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkDiscard, mappingErrors(params => discardFork(ctx.forks, requireForkId(params))));
}
