// "Rewind to here": a chat's files and conversation back to a response — from the button under a @fork
// response, or right-click on a message of the Forks panel's transcript — asking first when files also
// changed outside the agent, and offering Undo afterwards.
import * as vscode from 'vscode';
import { sessionRewind } from '../../common/protocol/checkpoints';
import type { RewindParams, RewindResult } from '../../common/protocol/checkpoints';
import type { RuntimeApi } from '../runtimeApi';
import type { ForkFromHereArgs } from './forkFromHere';
import type { MessageContext } from './forkFromMessage';
import { errorText } from './panelDeps';

const BOTH = 'Files and Conversation';
const FILES = 'Files Only';
const TALK = 'Conversation Only';

/** `currentSession`: the chat the Forks panel shows, for a right-clicked message (which names only its entry). */
export interface RewindDeps { currentSession(): string | undefined; rewound(): void }

export function registerRewindHere(context: vscode.ExtensionContext, runtime: RuntimeApi, deps: RewindDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand('forkAgents.rewindHere', async (args?: ForkFromHereArgs & MessageContext) => {
    const sessionId = args?.sessionId ?? deps.currentSession();
    const entryId = args?.entryId ?? args?.messageId;
    if (!sessionId || !entryId) {
      void vscode.window.showInformationMessage('Rewind to here works on a response of @fork: use the button under it, or right-click a message in the Forks view.');
      return undefined;
    }
    const what = await vscode.window.showWarningMessage(
      'Rewind to this response?',
      { modal: true, detail: 'Files the agent changed since then are put back, and the conversation continues from here. You can undo it until you send the next message.' },
      BOTH, FILES, TALK,
    );
    if (!what) return undefined;
    const params: RewindParams = { sessionId, atEntryId: entryId, ...(what === FILES ? { code: true } : what === TALK ? { conversation: true } : {}) };
    return rewindAsking(runtime, params, deps.rewound);
  }));
}

/** Sends the rewind; when files also changed outside the agent, lists them and asks before sending it again confirmed. */
export async function rewindAsking(runtime: RuntimeApi, params: RewindParams, rewound: () => void): Promise<RewindResult | undefined> {
  try {
    let result = await runtime.request(sessionRewind, params);
    if (!result.done) {
      const shown = result.outside.slice(0, 20).join('\n') + (result.outside.length > 20 ? `\n… and ${result.outside.length - 20} more` : '');
      const answer = await vscode.window.showWarningMessage(
        `${result.outside.length} file(s) also changed outside the agent since then. Replace them too?`,
        { modal: true, detail: shown },
        'Replace Them Too',
      );
      if (answer !== 'Replace Them Too') return undefined;
      result = await runtime.request(sessionRewind, { ...params, confirm: true });
    }
    rewound();
    const left = result.leftAlone.length > 0 ? ` Left as they are: ${result.leftAlone.join(', ')}.` : '';
    const done = params.undo ? 'Undid the rewind' : 'Rewound';
    void vscode.window.showInformationMessage(`${done}: ${result.files.length} file(s) put back.${left}`, ...(params.undo ? [] : ['Undo'])).then(choice => {
      if (choice === 'Undo') void rewindAsking(runtime, { sessionId: params.sessionId, undo: true }, rewound);
    });
    return result;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not rewind: ${errorText(error)}`);
    return undefined;
  }
}
