// fork/list: every fork the runtime knows (running, finished, revived), optionally of one parent.
import { forkList } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerForkList(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkList, params => ({
    forks: ctx.forks.list(params?.parentSessionId),
  }));
}
