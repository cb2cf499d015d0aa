// session/cancel: aborts the running turn; its tools are killed and every open call gets a result.
import { sessionCancel } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerCancel(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionCancel, params => ({ cancelled: ctx.turns.cancel(params.sessionId) }));
}
