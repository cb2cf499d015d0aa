// Where a background fork's permission requests go: a connected client that answers fork approvals
// (the editor). With none connected the fork waits until one connects (e.g. after a window reload).
import { permissionRequest } from '../common/protocol/runtime';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';
import type { ClientConnection } from './clientConnection';

export class ApprovalRouter {
  private waiting: (() => void)[] = [];

  constructor(private readonly clients: ReadonlySet<ClientConnection>) {}

  /** Call when a client connects or configures: waiting approvals retry. */
  clientsChanged(): void {
    for (const retry of this.waiting.splice(0)) retry();
  }

  async ask(params: PermissionParams, signal: AbortSignal): Promise<PermissionResult> {
    for (;;) {
      if (signal.aborted) return { approved: false, reason: 'cancelled' };
      const client = this.pick();
      if (client) {
        try {
          return await client.request(permissionRequest, params);
        } catch {
          // The client went away mid-question: ask the next one (or wait for one).
          continue;
        }
      }
      await new Promise<void>(resolve => {
        this.waiting.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  private pick(): ClientConnection | undefined {
    return [...this.clients].reverse().find(client => !client.closed && client.config.answersForkApprovals === true);
  }
}
