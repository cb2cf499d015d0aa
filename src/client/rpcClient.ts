// A plain JSON-RPC client of the runtime (CLI, tests): the LSP initialize handshake with the runtime's
// token, then typed calls. Every request fails with a clear error if the runtime goes away meanwhile.
import type * as net from 'node:net';
import { SocketMessageReader, SocketMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { PROTOCOL_VERSION, RuntimeErrorCode } from '../common/protocol/runtime';
import type { InitializationOptions } from '../common/protocol/runtime';
import type { RpcEndpoint } from '../common/protocol/endpoint';
import { runtimeTokenFor } from './launch';

export interface RuntimeClient {
  connection: MessageConnection;
  endpoint: RpcEndpoint;
  close(): Promise<void>;
}

export class RuntimeGoneError extends Error {}

export async function connectRpc(socket: net.Socket, clientName: string): Promise<RuntimeClient> {
  const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  // Pending requests are not rejected when the peer dies, so each one races the socket's close.
  const gone = new Promise<never>((_, reject) => socket.once('close', () => reject(new RuntimeGoneError(
    'The Fork Agents runtime stopped before answering (it exited or was killed); see runtime.log in the store.'))));
  // Safe to drop: observed by the requests that race it; this only keeps an unobserved rejection from crashing the process.
  gone.catch(() => undefined);
  connection.listen();
  const call = <R>(send: () => Promise<R>): Promise<R> => Promise.race([send(), gone]);
  const initialize = () => {
    const initializationOptions: InitializationOptions = { protocolVersion: PROTOCOL_VERSION, clientName, token: runtimeTokenFor(socket) };
    return call(() => connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions }));
  };
  try {
    await initialize().catch(error => {
      // A runtime that has just bound its socket may not have replaced the token file yet when we read it.
      if ((error as { code?: unknown })?.code !== RuntimeErrorCode.unauthorized) throw error;
      return initialize();
    });
  } catch (error) {
    if (error instanceof RuntimeGoneError) throw new Error('The runtime closed the connection during initialize.');
    throw error;
  }
  const endpoint: RpcEndpoint = {
    sendRequest: (method, params) => call(() => connection.sendRequest(method, params)),
    sendNotification: (method, params) => connection.sendNotification(method, params),
    onRequest: (method, handler) => connection.onRequest(method, handler),
    onNotification: (method, handler) => connection.onNotification(method, handler),
  };
  return {
    connection,
    endpoint,
    async close() {
      const polite = (async () => {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      // Safe to drop: a polite shutdown to a runtime that is already gone: closing goes on regardless.
      })().catch(() => undefined);
      // Safe to drop: a runtime already gone is what this race waits for.
      await Promise.race([polite, gone.catch(() => undefined)]);
      connection.dispose();
      socket.end();
    },
  };
}
