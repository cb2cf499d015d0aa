// What the buttons of a fork's item in the chat do (chat/chatForks.ts): Open shows the fork's report when
// it has one, else its transcript so far, with the Forks view beside it; Stop stops it. Internal commands
// (no palette entry): the chat passes `{ forkId }`.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ForkSummary } from '../../common/forks';
import { forkCancel, forkList } from '../../common/protocol/forks';
import { CHAT_FORK_COMMANDS } from '../chat/chatForks';
import type { ShowReport } from '../forks/reportDocs';
import type { OpenReadOnly } from '../panel/readOnlyDocs';
import type { PanelDeps } from './panelDeps';
import { errorText } from './panelDeps';

export function registerChatForkCommands(context: vscode.ExtensionContext, deps: PanelDeps, openDoc: OpenReadOnly, showReport: ShowReport): void {
  const find = async (forkId: unknown): Promise<ForkSummary | undefined> => {
    if (typeof forkId !== 'string') return undefined;
    const fork = deps.model.fork(forkId) ?? (await deps.runtime.request(forkList, {})).forks.find(f => f.id === forkId);
    if (!fork) void vscode.window.showWarningMessage('That fork is no longer in the store (it was deleted).');
    return fork;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(CHAT_FORK_COMMANDS.open, async (arg?: { forkId?: unknown }) => {
      const fork = await find(arg?.forkId);
      if (!fork) return;
      await deps.view().reveal(fork.id);
      if (fork.report && isTerminal(fork.state)) await showReport(fork);
      else await openDoc('transcript', fork.id, `${fork.name} (transcript).md`, 'markdown');
    }),
    vscode.commands.registerCommand(CHAT_FORK_COMMANDS.stop, async (arg?: { forkId?: unknown }) => {
      const fork = await find(arg?.forkId);
      if (!fork) return;
      if (isTerminal(fork.state)) {
        void vscode.window.showInformationMessage(`Fork “${fork.name}” has already ${fork.state === 'completed' ? 'finished' : `ended (${fork.state})`}.`);
        return;
      }
      await deps.runtime.request(forkCancel, { forkId: fork.id }).catch(error => vscode.window.showErrorMessage(errorText(error)));
    }),
  );
}
