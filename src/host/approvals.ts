// Answers the runtime's `permission/request` (issue 2 §4) with a modal: Allow, Deny, or dismissed (= deny).
import * as vscode from 'vscode';
import { permissionRequest } from '../common/protocol/runtime';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';
import { ALLOW, DENY, approvalAnswer, approvalDetail, approvalMessage } from './approvalText';
import type { RuntimeConnection } from './runtimeConnection';

export function registerApprovals(context: vscode.ExtensionContext, runtime: RuntimeConnection): void {
  context.subscriptions.push(runtime.handle(permissionRequest, askUser));
}

export async function askUser(params: PermissionParams): Promise<PermissionResult> {
  const choice = await vscode.window.showWarningMessage(
    approvalMessage(params.description),
    { modal: true, detail: approvalDetail(params) },
    ALLOW,
    DENY,
  );
  return approvalAnswer(choice);
}
