// `Fork from here` (the button under each response): forks the session from that response with the
// default turn count, after asking for the directive.
import * as vscode from 'vscode';
import { forkTurnsToString } from '../../common/forkTurns';
import { forkStart } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';

/** The button's argument: the session and the entry to fork from. */
export interface ForkFromHereArgs { sessionId: string; entryId?: string }

export function registerForkFromHere(context: vscode.ExtensionContext, runtime: RuntimeApi, settings: HostSettings): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.forkFromHere', async (args?: ForkFromHereArgs, directiveArg?: string) => {
      if (!args?.sessionId) {
        void vscode.window.showInformationMessage('Fork from here works on a response of @fork: use the button under it.');
        return undefined;
      }
      const directive = directiveArg ?? (await vscode.window.showInputBox({
        title: 'Fork from here',
        prompt: `What should the fork do? It inherits the conversation up to this response (turns: ${forkTurnsToString(settings.defaultTurns())}).`,
        placeHolder: 'e.g. write tests for the parser',
        ignoreFocusOut: true,
        validateInput: value => (value.trim() === '' ? 'Say what the fork should do.' : undefined),
      }));
      if (!directive) return undefined;
      try {
        // A worktree fork's git worktree is made before the fork starts (up to a second or two).
        const fork = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Starting the fork…' }, () => runtime.request(forkStart, {
          sessionId: args.sessionId, atEntryId: args.entryId, directive, forkTurns: forkTurnsToString(settings.defaultTurns()), origin: 'message',
        }));
        void vscode.window.showInformationMessage(`Fork "${fork.name}" started in the background.`);
        return fork;
      } catch (error) {
        void vscode.window.showErrorMessage(`Could not start the fork: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
  );
}
