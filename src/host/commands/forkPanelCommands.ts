// The Fork commands of the panel: Show Forks, Stop All, New Directive, and Fork from here on
// a message of the panel's transcript.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import { forkCancel } from '../../common/protocol/forks';
import { forkFromMessageCommand } from './forkFromMessage';
import { newDirective } from './newDirective';
import type { PanelDeps } from './panelDeps';

export function registerPanelCommands(context: vscode.ExtensionContext, deps: PanelDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.showForks', () => deps.view().reveal()),
    vscode.commands.registerCommand('forkAgents.newDirective', () => newDirective(deps)),
    vscode.commands.registerCommand('forkAgents.stopAll', () => stopAll(deps)),
    vscode.commands.registerCommand('forkAgents.forkFromMessage', forkFromMessageCommand(deps)),
  );
}

async function stopAll(deps: PanelDeps): Promise<number> {
  const live = deps.model.forks().filter(fork => !isTerminal(fork.state));
  if (live.length === 0) {
    void vscode.window.showInformationMessage('No fork is running or queued.');
    return 0;
  }
  const results = await Promise.allSettled(live.map(fork => deps.runtime.request(forkCancel, { forkId: fork.id })));
  const stopped = results.filter(r => r.status === 'fulfilled' && r.value.cancelled).length;
  void vscode.window.showInformationMessage(`Stopped ${stopped} fork${stopped === 1 ? '' : 's'}.`);
  return stopped;
}
