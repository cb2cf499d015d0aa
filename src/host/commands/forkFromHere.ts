// `Fork from here` (the button under each response) and `/fork`: wired now, the fork engine lands later.
import * as vscode from 'vscode';

export const FORKS_NOT_YET = 'Forks arrive in the next release — not available yet.';

/** The button's argument: the session and the entry to fork from. */
export interface ForkFromHereArgs { sessionId: string; entryId?: string }

export function registerForkFromHere(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.forkFromHere', (_args?: ForkFromHereArgs) => {
      void vscode.window.showInformationMessage(FORKS_NOT_YET);
    }),
  );
}
