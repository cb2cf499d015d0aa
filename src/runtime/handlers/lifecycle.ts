// LSP lifecycle messages. `initialize` must carry the runtime's token before anything else is
// served — the protocol version is not even revealed without it. `exit` closes only this client's
// connection: the runtime is shared by every window and CLI run of the store and keeps its turns running.
import { timingSafeEqual } from 'node:crypto';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { PROTOCOL_VERSION, RuntimeErrorCode } from '../../common/protocol/runtime';
import type { InitializationOptions } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

/** Wrong tokens tolerated on one connection (a client may have read the previous runtime's file once). */
const MAX_TOKEN_ATTEMPTS = 3;

// The LSP lifecycle by method name over plain vscode-jsonrpc: the language-server library (its whole
// protocol) would cost every runtime start its parse and set-up for three names.
interface InitializeParams { initializationOptions?: unknown }
interface InitializeResult { capabilities: Record<string, never>; serverInfo: { name: string; version: string } }

export function registerLifecycle(ctx: RuntimeContext, client: ClientConnection): void {
  let failures = 0;
  client.rpc.onRequest('initialize', (params: InitializeParams): InitializeResult => {
    const options = params?.initializationOptions as Partial<InitializationOptions> | undefined;
    if (client.admitted) throw new ResponseError(ErrorCodes.InvalidRequest, 'Already initialized.');
    if (!tokenMatches(options?.token, ctx.token)) {
      // Closed a moment later: the refusal is written asynchronously and must reach the client first.
      if (++failures >= MAX_TOKEN_ATTEMPTS) setTimeout(() => client.drop(), 100);
      throw new ResponseError(RuntimeErrorCode.unauthorized,
        "The runtime's token is missing or wrong: only the user who owns the store can connect (its runtime.token file).");
    }
    if (options?.protocolVersion !== PROTOCOL_VERSION) {
      // docs/design.md §2: after an extension update, an idle runtime of the old version makes way (the client
      // then starts its own); one with running work stays until that work is done.
      const replacing = ctx.turns.count === 0 && !ctx.forks.busy;
      if (replacing) setTimeout(() => ctx.stop(`replaced: a client speaks protocol ${String(options?.protocolVersion)}`), 100);
      throw new ResponseError(RuntimeErrorCode.protocolMismatch,
        `Protocol mismatch: this runtime speaks version ${PROTOCOL_VERSION}, the client ${options?.protocolVersion ?? 'none'}.` +
          (replacing ? ' It is idle and stops now, so that a new one can start.' : ' It has running work and stays until that is done.'),
        { replacing, runtime: ctx.info });
    }
    client.clientName = typeof options.clientName === 'string' ? options.clientName : 'unknown';
    ctx.admit(client);
    return { capabilities: {}, serverInfo: { name: 'fork-agents-runtime', version: ctx.info.version }, ...{ runtime: ctx.info } };
  });
  client.rpc.onRequest('shutdown', () => undefined);
  client.rpc.onNotification('exit', () => client.rpc.dispose());
}

function tokenMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
