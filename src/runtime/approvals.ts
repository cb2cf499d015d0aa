// Where a background fork's permission requests go: a connected client that answers fork approvals
// (the editor). With none connected the fork waits for one (a window reload takes seconds), but not
// forever: a CLI fork in `ask` mode with no editor would otherwise hang and keep its
// runtime alive. After the bounded wait the call is denied with a reason saying what would help.
import { permissionRequest } from '../common/protocol/runtime';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';
import type { ClientConnection } from './clientConnection';
import { modeThatAllows } from '../common/approval';
import type { ToolCategory } from '../common/approval';

/** How long a fork's approval waits for an editor to connect; FORK_AGENTS_APPROVAL_WAIT_MS overrides it. */
export const APPROVAL_WAIT_MS = 2 * 60_000;

/** Why a fork's call was refused with no editor to ask, and the flag that would allow this kind of call. */
export function noApproverReason(waitMs: number, category: ToolCategory): string {
  const wait = waitMs < 1000 ? `${waitMs} ms` : `${Math.round(waitMs / 1000)} s`;
  return `no editor was connected to approve it within ${wait}; a fork's approvals are answered in VS Code with Fork Agents open ` +
    `or by \`fork-agents fork --wait\` on a terminal, or start the fork with ${modeThatAllows(category)}`;
}

export class ApprovalRouter {
  private waiting: (() => void)[] = [];
  /** Per fork: the clients waiting for it that answer its approvals themselves (a terminal), latest last. */
  private readonly answerers = new Map<string, ClientConnection[]>();
  readonly waitMs: number;

  constructor(private readonly clients: ReadonlySet<ClientConnection>, waitMs?: number) {
    const fromEnv = Number(process.env.FORK_AGENTS_APPROVAL_WAIT_MS);
    this.waitMs = waitMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : APPROVAL_WAIT_MS);
  }

  /**
   * `client` answers `forkId`'s approvals, before any editor, until the returned function is called (its
   * fork/wait ended). A question already waiting for someone goes to it now.
   */
  answerFor(forkId: string, client: ClientConnection): () => void {
    this.answerers.set(forkId, [...(this.answerers.get(forkId) ?? []), client]);
    this.clientsChanged();
    return () => {
      const rest = (this.answerers.get(forkId) ?? []).filter(other => other !== client);
      if (rest.length > 0) this.answerers.set(forkId, rest);
      else this.answerers.delete(forkId);
    };
  }

  /** Call when a client connects or configures: waiting approvals retry. */
  clientsChanged(): void {
    for (const retry of this.waiting.splice(0)) retry();
  }

  async ask(params: PermissionParams, signal: AbortSignal): Promise<PermissionResult> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      if (signal.aborted) return { approved: false, reason: 'cancelled', unanswered: true };
      const client = this.pick(params.sessionId);
      if (client) {
        try {
          return await client.request(permissionRequest, params);
        } catch {
          // The client went away mid-question: ask the next one (or wait for one).
          continue;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) return { approved: false, reason: noApproverReason(this.waitMs, params.category), unanswered: true };
      await new Promise<void>(resolve => {
        const timer = setTimeout(resolve, left);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        this.waiting.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private pick(forkId: string): ClientConnection | undefined {
    const own = (this.answerers.get(forkId) ?? []).filter(client => !client.closed).at(-1);
    return own ?? [...this.clients].reverse().find(client => !client.closed && client.config.answersForkApprovals === true);
  }
}
