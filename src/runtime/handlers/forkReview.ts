// fork/review: a worktree fork's changes against its base — file list and unified patch.
import { forkReview } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { reviewFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { requireForkId } from './requireForkId';

export function registerForkReview(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkReview, params => reviewFork(ctx.forks, requireForkId(params)));
}
