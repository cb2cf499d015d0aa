// "Fork from here" on a message of the Forks panel's transcript (the webview/context menu item, and the
// message's own button): forks the current chat session at that entry with the panel's turn count.
import * as vscode from 'vscode';
import type { ForkSummary, Isolation } from '../../common/forks';
import { forkTurnsToString, parseForkTurns } from '../../common/forkTurns';
import { defaultIsolation } from '../panel/forkStarter';
import type { PanelDeps } from './panelDeps';
import { errorText } from './panelDeps';

/** The context object VS Code passes from the element's data-vscode-context. */
export interface MessageContext { webviewSection?: string; messageId?: string }

/** The `forkAgents.forkFromMessage` command: its argument is the right-clicked element's context. */
export function forkFromMessageCommand(deps: PanelDeps): (args?: MessageContext) => Promise<ForkSummary | undefined> {
  return async args => {
    if (!args?.messageId) {
      void vscode.window.showInformationMessage('Fork from here works on a message: right-click one in the Forks view.');
      return undefined;
    }
    const picker = deps.view().picker;
    return forkFromMessage(deps, args.messageId, picker.forkTurns, picker.isolation);
  };
}

/** `forkTurns` null: the panel's picker holds an invalid value; undefined: no panel yet, the setting decides. */
export async function forkFromMessage(deps: PanelDeps, messageId: string, forkTurns?: string | null, isolation?: Isolation): Promise<ForkSummary | undefined> {
  if (forkTurns === null) {
    void vscode.window.showErrorMessage('The turn count in the Forks view is not valid; correct it, then fork from here again.');
    return undefined;
  }
  const turns = forkTurns ?? forkTurnsToString(deps.settings.defaultTurns());
  const parsed = parseForkTurns(turns, 'user');
  if (!parsed.ok) {
    void vscode.window.showErrorMessage(parsed.error);
    return undefined;
  }
  const inherits = parsed.value === 'all' ? 'the conversation up to this message' : `the last ${parsed.value} real turn(s) up to this message`;
  const directive = await vscode.window.showInputBox({
    title: 'Fork from here',
    prompt: `What should the fork do? It inherits ${inherits}.`,
    placeHolder: 'e.g. write tests for the parser',
    ignoreFocusOut: true,
    validateInput: value => (value.trim() === '' ? 'Say what the fork should do.' : undefined),
  });
  if (!directive) return undefined;
  try {
    const fork = await deps.starter.start({ directive, forkTurns: turns, isolation: isolation ?? defaultIsolation(), atEntryId: messageId });
    // Not reveal(): focusing the view when the start returns would close a palette or menu the user opened meanwhile.
    deps.view().showRow(fork.id);
    return fork;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not start the fork: ${errorText(error)}`);
    return undefined;
  }
}
