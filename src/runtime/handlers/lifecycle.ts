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
      throw new ResponseError(RuntimeErrorCode.protocolMismatch,
        `Protocol mismatch: this runtime speaks version ${PROTOCOL_VERSION}, the client ${options?.protocolVersion ?? 'none'}.`,
        { retry: false, runtime: ctx.info });
    }
    client.clientName = typeof options.clientName === 'string' ? options.clientName : 'unknown';
    return { capabilities: {}, serverInfo: { name: 'fork-agents-runtime', version: ctx.info.version }, ...{ runtime: ctx.info } };
  });
  client.rpc.onRequest(ShutdownRequest.type, () => undefined);
  client.rpc.onNotification(ExitNotification.type, () => client.rpc.dispose());
}
