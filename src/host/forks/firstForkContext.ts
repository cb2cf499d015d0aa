// The walkthrough's "Start your first fork" step ticks on the context key set here (package.json
// `onContext:forkAgents.forkStarted`): a fork from /fork, Fork from here, the Forks panel or the CLI is
// seen as its first fork/state, not only the step's own New Directive button.
import * as vscode from 'vscode';
import { forkState } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';

const FORK_STARTED = 'forkAgents.forkStarted';

export function registerFirstForkContext(context: vscode.ExtensionContext, runtime: Pick<RuntimeApi, 'listen'>): void {
  const show = () => void vscode.commands.executeCommand('setContext', FORK_STARTED, true);
  // Kept in globalState: after a reload the key is set again before any fork of this window runs.
  if (context.globalState.get<boolean>(FORK_STARTED)) return show();
  const listener = runtime.listen(forkState, () => {
    listener.dispose();
    void context.globalState.update(FORK_STARTED, true);
    show();
  });
  context.subscriptions.push(listener);
}
