// LSP lifecycle messages. `exit` closes only this client's connection: the runtime is shared by every
// window and CLI run of the store and keeps its turns running when one of them goes away.
import { ExitNotification, InitializeRequest, ResponseError, ShutdownRequest } from 'vscode-languageserver/node';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver/node';
import { PROTOCOL_VERSION, RuntimeErrorCode } from '../../common/protocol/runtime';
import type { InitializationOptions } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerLifecycle(ctx: RuntimeContext, client: ClientConnection): void {
  client.rpc.onRequest(InitializeRequest.type, (params: InitializeParams): InitializeResult => {
    const options = params.initializationOptions as Partial<InitializationOptions> | undefined;
    if (options?.protocolVersion !== PROTOCOL_VERSION) {
      // DESIGN §2: after an extension update, an idle runtime of the old version makes way (the client
      // then starts its own); one with running work stays until that work is done.
      const replacing = ctx.turns.count === 0 && !ctx.forks.busy;
      if (replacing) setTimeout(() => ctx.stop(`replaced: a client speaks protocol ${String(options?.protocolVersion)}`), 100);
      throw new ResponseError(RuntimeErrorCode.protocolMismatch,
        `Protocol mismatch: this runtime speaks version ${PROTOCOL_VERSION}, the client ${options?.protocolVersion ?? 'none'}.` +
          (replacing ? ' It is idle and stops now, so that a new one can start.' : ' It has running work and stays until that is done.'),
        { replacing, runtime: ctx.info });
    }
    client.clientName = typeof options.clientName === 'string' ? options.clientName : 'unknown';
    return { capabilities: {}, serverInfo: { name: 'fork-agents-runtime', version: ctx.info.version }, ...{ runtime: ctx.info } };
  });
  client.rpc.onRequest(ShutdownRequest.type, () => undefined);
  client.rpc.onNotification(ExitNotification.type, () => client.rpc.dispose());
}
