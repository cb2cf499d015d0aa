// `Fork: Delete Session…`: pick a chat session or a finished fork, confirm, delete. History that forks
// still inherit stays on disk until nothing references it; the message says what the store takes now.
// A worktree with changes never applied or kept asks again before they are discarded.
import * as vscode from 'vscode';
import { forkList } from '../../common/protocol/forks';
import { sessionDelete, sessionList } from '../../common/protocol/runtime';
import type { RuntimeApi } from '../runtimeApi';

interface Choice extends vscode.QuickPickItem { id: string; fork: boolean }

export function registerDeleteSession(context: vscode.ExtensionContext, runtime: RuntimeApi): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.deleteSession', async () => {
      try {
        const { sessions } = await runtime.request(sessionList, {});
        const { forks } = await runtime.request(forkList, {});
        const choices: Choice[] = [
          ...sessions.filter(s => !s.id.startsWith('f-')).map(s => ({
            id: s.id, fork: false, label: s.title || s.id, description: `chat · ${s.createdAt.slice(0, 16).replace('T', ' ')}`, detail: s.id,
          })),
          ...forks.map(f => ({ id: f.id, fork: true, label: f.name, description: `fork · ${f.state}`, detail: f.id })),
        ];
        if (choices.length === 0) {
          void vscode.window.showInformationMessage('There are no sessions to delete.');
          return;
        }
        const picked = await vscode.window.showQuickPick(choices, { title: 'Delete Session', placeHolder: 'A chat session or a fork to delete', matchOnDetail: true });
        if (!picked) return;
        const what = picked.fork ? `the fork "${picked.label}" and its worktree` : `the chat "${picked.label}" (its forks keep what they inherited; their worktrees are removed)`;
        const confirm = await vscode.window.showWarningMessage(`Delete ${what}? This cannot be undone.`, { modal: true }, 'Delete');
        if (confirm !== 'Delete') return;
        const params = picked.fork ? { forkId: picked.id } : { sessionId: picked.id };
        let result;
        try {
          result = await runtime.request(sessionDelete, params);
        } catch (error) {
          // A worktree holding changes never applied or kept: the user decides whether to lose them.
          const message = error instanceof Error ? error.message : String(error);
          if (!message.includes('--force')) throw error;
          const choice = await vscode.window.showWarningMessage(message, { modal: true }, 'Discard Changes and Delete');
          if (choice !== 'Discard Changes and Delete') return;
          result = await runtime.request(sessionDelete, { ...params, force: true });
        }
        const worktrees = result.worktreesRemoved?.length ? ` ${result.worktreesRemoved.length} worktree(s) removed.` : '';
        void vscode.window.showInformationMessage(`Deleted.${worktrees} The store now takes ${(result.store.bytes / 1024 / 1024).toFixed(1)} MB.`);
      } catch (error) {
        void vscode.window.showErrorMessage(`Could not delete: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
}
