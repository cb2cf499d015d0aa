// fork/keep: commit the fork's work to its branch so it outlives the worktree; nothing is removed.
import { forkKeep } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { keepFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { requireForkId } from './requireForkId';

export function registerForkKeep(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkKeep, params => keepFork(ctx.forks, requireForkId(params)));
}
