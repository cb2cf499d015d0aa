// `Fork: Show Runtime Log` opens <store>/runtime.log, where the detached runtime writes.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { runtimeLogPath } from '../../ipc/socketPath';

export function registerShowRuntimeLog(context: vscode.ExtensionContext, storeDir: string): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.showRuntimeLog', async () => {
      const file = runtimeLogPath(storeDir);
      if (!fs.existsSync(file)) {
        void vscode.window.showInformationMessage(`No runtime log yet: ${file} appears once the runtime has started.`);
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
    }),
  );
}
