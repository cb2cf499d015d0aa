// Answers the runtime's `permission/request` with a modal: Allow, Deny, or dismissed (= deny).
// Forks' requests go to the Forks panel instead while it is visible; the modal is the fallback.
import * as vscode from 'vscode';
import { permissionRequest } from '../common/protocol/runtime';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';
import { ALLOW, DENY, approvalAnswer, approvalDetail, approvalMessage } from './approvalText';
import type { RuntimeConnection } from './runtimeConnection';

/** Somewhere else that can ask (the Forks panel), for the requests it accepts. */
export interface ForkApprovalRoute {
  accepts(params: PermissionParams): boolean;
  ask(params: PermissionParams): Promise<PermissionResult>;
}

export function registerApprovals(context: vscode.ExtensionContext, runtime: RuntimeConnection, forks?: ForkApprovalRoute): void {
  context.subscriptions.push(runtime.handle(permissionRequest, params => (forks?.accepts(params) ? forks.ask(params) : askUser(params))));
}

export async function askUser(params: PermissionParams): Promise<PermissionResult> {
  const message = approvalMessage(params.description);
  const detail = approvalDetail(params);
  let choice: string | undefined;
  try {
    choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ALLOW, DENY);
  } catch {
    // Some workbenches refuse modal dialogs (VS Code's test/smoke-test mode): a notification still asks.
    choice = await vscode.window.showWarningMessage(`${message}. ${detail.replace(/\n/g, '; ')}`, ALLOW, DENY);
  }
  return approvalAnswer(choice);
}
