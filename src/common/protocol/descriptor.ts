// Typed message descriptors: a method name carrying its parameter and result types.
// Both JSON-RPC sides (runtime, extension host, CLI) and the webview channel use them.

export interface RequestDescriptor<P, R> {
  readonly kind: 'request';
  readonly method: string;
  /** Phantom fields: never set, only carry the types. */
  readonly _params?: P;
  readonly _result?: R;
}

export interface NotificationDescriptor<P> {
  readonly kind: 'notification';
  readonly method: string;
  readonly _params?: P;
}

export function request<P, R>(method: string): RequestDescriptor<P, R> {
  return { kind: 'request', method };
}

export function notification<P>(method: string): NotificationDescriptor<P> {
  return { kind: 'notification', method };
}

export type ParamsOf<D> = D extends RequestDescriptor<infer P, unknown> ? P : D extends NotificationDescriptor<infer P> ? P : never;
export type ResultOf<D> = D extends RequestDescriptor<unknown, infer R> ? R : never;
