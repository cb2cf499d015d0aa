// A plain JSON-RPC client of the runtime (CLI, tests): the LSP initialize handshake, then typed calls.
import type * as net from 'node:net';
import { SocketMessageReader, SocketMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { PROTOCOL_VERSION } from '../common/protocol/runtime';
import type { InitializationOptions } from '../common/protocol/runtime';
import type { RpcEndpoint } from '../common/protocol/endpoint';

export interface RuntimeClient {
  connection: MessageConnection;
  endpoint: RpcEndpoint;
  close(): Promise<void>;
}

export async function connectRpc(socket: net.Socket, clientName: string): Promise<RuntimeClient> {
  const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  // Pending requests are not rejected when the peer dies, so closing races them against the socket.
  const gone = new Promise<void>(resolve => socket.once('close', () => resolve()));
  connection.listen();
  const initializationOptions: InitializationOptions = { protocolVersion: PROTOCOL_VERSION, clientName };
  const closedEarly = gone.then(() => {
    throw new Error('The runtime closed the connection during initialize.');
  });
  await Promise.race([
    connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions }),
    closedEarly,
  ]);
  closedEarly.catch(() => undefined);
  return {
    connection,
    endpoint: connection as unknown as RpcEndpoint,
    async close() {
      const polite = (async () => {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      })().catch(() => undefined);
      await Promise.race([polite, gone]);
      connection.dispose();
      socket.end();
    },
  };
}
