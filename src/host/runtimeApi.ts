// The host's view of the runtime: typed requests and the events of one turn. Features depend on this
// interface, not on the LanguageClient, so they stay small and the test API can hand it out.
import type { NotificationDescriptor, RequestDescriptor } from '../common/protocol/descriptor';
import type { Disposable } from '../common/protocol/endpoint';
import type { SessionEventParams } from '../common/protocol/runtime';

export interface RuntimeApi {
  /** Connects (starting the runtime if needed) and configures model access first. */
  request<P, R>(descriptor: RequestDescriptor<P, R>, params: P): Promise<R>;
  /** The `session/event`s of one turn, by the client-chosen turn id. */
  onEvent(turnId: string, listener: (params: SessionEventParams) => void): Disposable;
  /** A runtime notification (e.g. `fork/state`), kept across reconnects. */
  listen<P>(descriptor: NotificationDescriptor<P>, listener: (params: P) => void): Disposable;
}

/** The runtime could not be reached or started; `mismatch` when it speaks another protocol version. */
export class RuntimeUnavailableError extends Error {
  constructor(message: string, readonly mismatch = false) {
    super(message);
    this.name = 'RuntimeUnavailableError';
  }
}
