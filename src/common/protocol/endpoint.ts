// Typed calls over any JSON-RPC endpoint with string method names: vscode-jsonrpc's MessageConnection
// (runtime, CLI) and vscode-languageclient's LanguageClient (extension host) both fit this shape.
import type { NotificationDescriptor, RequestDescriptor } from './descriptor';

export interface Disposable { dispose(): void }

// `any` on purpose: the untyped edge that the helpers below type.
export interface RpcEndpoint {
  sendRequest(method: string, params: any): Promise<any>;
  sendNotification(method: string, params: any): Promise<void> | void;
  onRequest(method: string, handler: (params: any) => any): Disposable;
  onNotification(method: string, handler: (params: any) => void): Disposable;
}

export function sendRequest<P, R>(endpoint: RpcEndpoint, descriptor: RequestDescriptor<P, R>, params: P): Promise<R> {
  return endpoint.sendRequest(descriptor.method, params) as Promise<R>;
}

export async function sendNotification<P>(endpoint: RpcEndpoint, descriptor: NotificationDescriptor<P>, params: P): Promise<void> {
  await endpoint.sendNotification(descriptor.method, params);
}

export function onRequest<P, R>(endpoint: RpcEndpoint, descriptor: RequestDescriptor<P, R>, handler: (params: P) => R | Promise<R>): Disposable {
  return endpoint.onRequest(descriptor.method, handler);
}

export function onNotification<P>(endpoint: RpcEndpoint, descriptor: NotificationDescriptor<P>, handler: (params: P) => void): Disposable {
  return endpoint.onNotification(descriptor.method, handler);
}
