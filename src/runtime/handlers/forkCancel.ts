// fork/cancel: stops a queued or running fork; its open tool calls get results and its state is kept.
import { forkCancel } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkCancel(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkCancel, params => ({ cancelled: ctx.forks.cancel(params.forkId) }));
}
