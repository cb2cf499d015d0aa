// `Fork: New Directive` (issue 4 §4): directive, turn count (All, 1, 2, 3, …, Custom…) and isolation
// through quick input, then a fork of the current chat session.
import * as vscode from 'vscode';
import type { ForkSummary, Isolation } from '../../common/forks';
import { countRealTurns } from '../../common/forkWindow';
import { requestViewOf } from '../../common/requestView';
import { forkTurnsToString } from '../../common/forkTurns';
import { sessionTranscript } from '../../common/protocol/runtime';
import { NO_SESSION_MESSAGE, defaultIsolation } from '../panel/forkStarter';
import type { PanelDeps } from './panelDeps';
import { errorText } from './panelDeps';
import { turnChoices, turnsHint, validateTurns } from './turnChoices';
import type { TurnChoice } from './turnChoices';

const TITLE = 'Fork: New Directive';

export async function newDirective(deps: PanelDeps): Promise<ForkSummary | undefined> {
  const sessionId = deps.starter.sessionId;
  if (!sessionId) {
    void vscode.window.showErrorMessage(NO_SESSION_MESSAGE);
    return undefined;
  }
  const directive = await vscode.window.showInputBox({
    title: `${TITLE} (1/3)`,
    prompt: 'What should the fork do? It works in the background and reports when done.',
    placeHolder: 'e.g. write tests for the parser',
    ignoreFocusOut: true,
    validateInput: value => (value.trim() === '' ? 'Say what the fork should do.' : undefined),
  });
  if (!directive) return undefined;
  const turns = await pickTurns(await realTurnsOf(deps, sessionId), forkTurnsToString(deps.settings.defaultTurns()));
  if (!turns) return undefined;
  const isolation = await pickIsolation(defaultIsolation());
  if (!isolation) return undefined;
  try {
    const fork = await deps.starter.start({ directive, forkTurns: turns, isolation });
    deps.view().highlight(fork.id);
    void vscode.window.showInformationMessage(`Fork "${fork.name}" started in the background.`, 'Show Forks').then(choice => {
      if (choice) void deps.view().reveal(fork.id);
    });
    return fork;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not start the fork: ${errorText(error)}`);
    return undefined;
  }
}

async function realTurnsOf(deps: PanelDeps, sessionId: string): Promise<number> {
  const shown = deps.model.currentSession();
  if (shown?.sessionId === sessionId) return shown.realTurns;
  // Only turns after the latest compaction summary count: a numeric window cannot reach the others.
  return countRealTurns(requestViewOf((await deps.runtime.request(sessionTranscript, { sessionId })).entries));
}

async function pickTurns(realTurns: number, preferred: string): Promise<string | undefined> {
  const choices = turnChoices(realTurns);
  const picked = await pickOne<TurnChoice>(choices, {
    title: `${TITLE} (2/3): how much of the conversation to inherit`,
    placeholder: `${turnsHint(realTurns)} All, or the last N real turns.`,
    active: choices.find(c => c.value === preferred),
  });
  if (!picked) return undefined;
  if (picked.value) return picked.value;
  return vscode.window.showInputBox({
    title: `${TITLE} (2/3): custom turn count`,
    prompt: `${turnsHint(realTurns)} "all" or a positive whole number.`,
    ignoreFocusOut: true,
    validateInput: validateTurns,
  });
}

async function pickIsolation(preferred: Isolation): Promise<Isolation | undefined> {
  const choices: (vscode.QuickPickItem & { value: Isolation })[] = [
    { label: 'worktree', description: 'its own git worktree and branch; you review and apply its changes', value: 'worktree' },
    { label: 'shared', description: 'works directly in this workspace folder', value: 'shared' },
  ];
  const picked = await pickOne(choices, { title: `${TITLE} (3/3): isolation`, placeholder: 'Where the fork works', active: choices.find(c => c.value === preferred) });
  return picked?.value;
}

/** showQuickPick cannot preselect an item; a QuickPick can. */
function pickOne<T extends vscode.QuickPickItem>(items: T[], options: { title: string; placeholder: string; active?: T }): Promise<T | undefined> {
  return new Promise(resolve => {
    const pick = vscode.window.createQuickPick<T>();
    pick.title = options.title;
    pick.placeholder = options.placeholder;
    pick.items = items;
    pick.ignoreFocusOut = true;
    if (options.active) pick.activeItems = [options.active];
    let chosen: T | undefined;
    pick.onDidAccept(() => {
      chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(chosen);
    });
    pick.show();
  });
}
