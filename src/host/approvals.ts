// Answers the runtime's `permission/request`. Forks' requests go to the Forks panel (its row, plus a
// notification while the view is hidden); a chat turn's to its own answer (chat/chatApprovals.ts). Anything
// else (a turn whose answer is gone) asks in a notification: never a modal dialog.
import * as vscode from 'vscode';
import { permissionRequest } from '../common/protocol/runtime';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';
import { ALLOW, DENY, approvalAnswer, approvalDetail, approvalMessage } from './approvalText';
import type { RuntimeConnection } from './runtimeConnection';

/** Somewhere that can ask (the Forks panel, a chat answer), for the requests it accepts. */
export interface ForkApprovalRoute {
  accepts(params: PermissionParams): boolean;
  ask(params: PermissionParams): Promise<PermissionResult>;
}

export function registerApprovals(context: vscode.ExtensionContext, runtime: RuntimeConnection, routes: readonly ForkApprovalRoute[]): void {
  context.subscriptions.push(runtime.handle(permissionRequest, params => routes.find(route => route.accepts(params))?.ask(params) ?? askUser(params)));
}

async function askUser(params: PermissionParams): Promise<PermissionResult> {
  const choice = await vscode.window.showWarningMessage(approvalMessage(params.description), { modal: false, detail: approvalDetail(params) }, ALLOW, DENY);
  return approvalAnswer(choice);
}
