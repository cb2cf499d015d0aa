// The webview's end of the panel channel: typed notifications and requests (with ids, answered once by
// the host) over VS Code's postMessage, and the page's own small persisted UI state.
import type { NotificationDescriptor, RequestDescriptor } from '../src/common/protocol/descriptor';
import { notificationMessage, requestMessage } from '../src/common/protocol/webview';
import type { WireMessage } from '../src/common/protocol/webview';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface Waiting { resolve(result: unknown): void; reject(error: Error): void }

export class HostChannel {
  private readonly api = acquireVsCodeApi();
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  notify<P>(descriptor: NotificationDescriptor<P>, params: P): void {
    this.api.postMessage(notificationMessage(descriptor, params));
  }

  request<P, R>(descriptor: RequestDescriptor<P, R>, params: P): Promise<R> {
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.api.postMessage(requestMessage(descriptor, id, params));
    });
  }

  /** Settles the request a response answers; false for any other message. */
  settle(message: WireMessage): boolean {
    if (message.kind !== 'response') return false;
    const waiting = this.waiting.get(message.id);
    if (!waiting) return true;
    this.waiting.delete(message.id);
    if (message.error !== undefined) waiting.reject(new Error(message.error));
    else waiting.resolve(message.result);
    return true;
  }

  loadState<T extends object>(defaults: T): T {
    const saved = this.api.getState();
    return saved && typeof saved === 'object' ? { ...defaults, ...(saved as Partial<T>) } : defaults;
  }

  saveState(state: object): void {
    this.api.setState(state);
  }
}
