// fork/review: a worktree fork's changes against its base — file list and unified patch.
import { forkReview } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { reviewFork } from '../fork/workspace/worktreeActions';
import type { RuntimeContext } from '../runtimeContext';
import { mappingErrors, requireForkId } from './worktreeErrors';

export function registerForkReview(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkReview, mappingErrors(params => reviewFork(ctx.forks, requireForkId(params))));
}
