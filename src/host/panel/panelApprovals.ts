// Every fork's approvals in one place (docs/design.md §4.6): a fork's permission request shows in its row of the
// Forks view with Approve / Deny and the fork waits; while the view is hidden (or once it is hidden) a
// non-modal notification with Allow / Deny asks as well, and whichever answers first decides. Background
// work never opens a modal dialog; the chat's own turn asks in the foreground.
import * as vscode from 'vscode';
import type { PermissionParams, PermissionResult } from '../../common/protocol/runtime';
import { ALLOW, DENY, approvalAnswer, approvalDetail, forkApprovalTitle } from '../approvalText';
import type { ForkApprovalRoute } from '../approvals';
import type { PanelModel } from './panelModel';

interface Waiting { params: PermissionParams; resolve(result: PermissionResult): void; escalated: boolean }

export class PanelApprovals implements ForkApprovalRoute {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly model: PanelModel, private readonly isVisible: () => boolean) {}

  accepts(params: PermissionParams): boolean {
    // Forks' sessions are the ones whose id starts with f- (the runtime's fork ids).
    return params.sessionId.startsWith('f-');
  }

  ask(params: PermissionParams): Promise<PermissionResult> {
    return new Promise(resolve => {
      this.waiting.set(params.callId, { params, resolve, escalated: false });
      this.model.addApproval({
        callId: params.callId, forkId: params.sessionId, toolName: params.toolName, category: params.category,
        description: params.description, detail: approvalDetail(params),
      });
      if (!this.isVisible()) this.viewHidden();
    });
  }

  /** The panel's Approve / Deny; false when nothing waits for that call any more. */
  answer(callId: string, approved: boolean): boolean {
    return this.settle(callId, approved ? { approved: true } : { approved: false, reason: 'denied in the Forks view' });
  }

  /** A fork that ended (stopped, failed) waits for nothing. */
  forkEnded(forkId: string): void {
    for (const [callId, waiting] of this.waiting) if (waiting.params.sessionId === forkId) this.settle(callId, { approved: false, reason: 'the fork ended', unanswered: true });
  }

  /** The panel was hidden: nobody may see the question there any more, so a notification asks as well. */
  viewHidden(): void {
    for (const [callId, waiting] of this.waiting) {
      if (waiting.escalated) continue;
      waiting.escalated = true;
      const { params } = waiting;
      const text = forkApprovalTitle(params, this.model.fork(params.sessionId)?.name);
      void vscode.window.showWarningMessage(text, { modal: false, detail: approvalDetail(params) }, ALLOW, DENY).then(choice => {
        // Closing the notification answers nothing: the panel still asks.
        if (choice) this.settle(callId, approvalAnswer(choice));
      });
    }
  }

  dispose(): void {
    for (const callId of [...this.waiting.keys()]) this.settle(callId, { approved: false, reason: 'the editor closed the panel', unanswered: true });
  }

  private settle(callId: string, result: PermissionResult): boolean {
    const waiting = this.waiting.get(callId);
    if (!waiting) return false;
    this.waiting.delete(callId);
    this.model.removeApproval(callId);
    waiting.resolve(result);
    return true;
  }
}
