// store/info: what the store takes on disk (the Forks panel and `fork-agents list` show it).
import { storeInfo } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { storeUsage } from '../session/retention';

export function registerStoreInfo(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(storeInfo, () => storeUsage(ctx.store));
}
