// One connected client (an editor window or a CLI run) and the model access it configured.
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { NotificationDescriptor, RequestDescriptor } from '../common/protocol/descriptor';
import { onRequest, sendNotification, sendRequest } from '../common/protocol/endpoint';
import type { RpcEndpoint } from '../common/protocol/endpoint';
import type { ConfigureParams } from '../common/protocol/runtime';
import { toResponseError } from './protocolErrors';

export class ClientConnection {
  config: ConfigureParams = {};
  clientName = 'unknown';
  closed = false;
  /** Presented the runtime's token at `initialize`; nothing else is served before. */
  admitted = false;
  /** Ends the connection from this side (the server sets it to destroy the socket). */
  drop: () => void = () => this.rpc.dispose();

  constructor(readonly id: number, readonly rpc: MessageConnection) {}

  private get endpoint(): RpcEndpoint {
    return this.rpc as unknown as RpcEndpoint;
  }

  /**
   * Serves one request of the protocol: the descriptor types the handler's params and result, so a handler
   * that expects other params, or answers another shape, fails the type-check. What it throws becomes a
   * protocol error in one place (protocolErrors.ts).
   */
  handle<P, R>(descriptor: RequestDescriptor<P, R>, handler: (params: P) => R | Promise<R>): void {
    onRequest(this.endpoint, descriptor, async params => {
      try {
        return await handler(params);
      } catch (error) {
        throw toResponseError(error);
      }
    });
  }

  request<P, R>(descriptor: RequestDescriptor<P, R>, params: P): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`client ${this.clientName} disconnected`));
    return sendRequest(this.endpoint, descriptor, params);
  }

  /** Dropped silently once the client is gone: the work it started goes on. */
  notify<P>(descriptor: NotificationDescriptor<P>, params: P): void {
    if (this.closed) return;
    // Safe to drop: a client that went away meanwhile: the notification had no one left to reach.
    sendNotification(this.endpoint, descriptor, params).catch(() => undefined);
  }
}
