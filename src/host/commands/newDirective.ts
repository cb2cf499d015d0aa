// `Fork: New Directive`: directive, turn count (All, 1, 2, 3, …, Custom…), isolation, the model (the
// chat's, preselected: it shares the prompt cache) and the number of attempts (1 preselected; more is a
// tournament) through quick input, then a fork (or tournament) of the current chat session.
import * as vscode from 'vscode';
import type { ForkSummary, Isolation } from '../../common/forks';
import { countRealTurns } from '../../common/forkWindow';
import { requestViewOf } from '../../common/requestView';
import { forkTurnsToString } from '../../common/forkTurns';
import { sessionTranscript } from '../../common/protocol/runtime';
import { coldCacheText, forkModelOptions } from '../../common/modelChoice';
import type { ModelOption } from '../../common/modelChoice';
import { availableModels } from '../lm/models';
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
    title: `${TITLE} (1/5)`,
    prompt: 'What should the fork do? It works in the background and reports when done.',
    placeHolder: 'e.g. write tests for the parser',
    ignoreFocusOut: true,
    validateInput: value => (value.trim() === '' ? 'Say what the fork should do.' : undefined),
  });
  if (!directive) return undefined;
  const conversation = await conversationOf(deps, sessionId);
  const turns = await pickTurns(conversation.realTurns, forkTurnsToString(deps.settings.defaultTurns()));
  if (!turns) return undefined;
  const isolation = await pickIsolation(defaultIsolation());
  if (!isolation) return undefined;
  const listed = deps.model.models().length > 0 ? deps.model.models() : await availableModels(deps.settings, deps.runtime);
  const model = await pickModel(conversation.model, listed);
  if (!model) return undefined;
  const attempts = await pickAttempts();
  if (!attempts) return undefined;
  try {
    const other = model !== conversation.model ? model : undefined;
    const fork = await deps.starter.start({
      directive, forkTurns: turns, isolation: attempts > 1 ? 'worktree' : isolation, ...(other ? { model: other } : {}),
      ...(attempts > 1 ? { attempts, ...(other ? { models: [other] } : {}) } : {}),
    });
    deps.view().highlight(fork.id);
    const cold = fork.parentModel ? ` ${coldCacheText(fork.model ?? model, fork.parentModel)}` : '';
    const what = attempts > 1 ? `A tournament of ${attempts} attempts of "${directive.trim()}" started, each in its own worktree.` : `Fork "${fork.name}" started in the background.`;
    void vscode.window.showInformationMessage(`${what}${cold}`, 'Show Forks').then(choice => {
      if (choice) void deps.view().reveal(fork.id);
    });
    return fork;
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not start the fork: ${errorText(error)}`);
    return undefined;
  }
}

/** Its real turns and its model (a new fork's default). */
async function conversationOf(deps: PanelDeps, sessionId: string): Promise<{ realTurns: number; model: string }> {
  const shown = deps.model.currentSession();
  if (shown?.sessionId === sessionId && shown.model) return { realTurns: shown.realTurns, model: shown.model };
  // Only turns after the latest compaction summary count: a numeric window cannot reach the others.
  const transcript = await deps.runtime.request(sessionTranscript, { sessionId });
  return { realTurns: countRealTurns(requestViewOf(transcript.entries)), model: transcript.header.settings.model };
}

async function pickTurns(realTurns: number, preferred: string): Promise<string | undefined> {
  const choices = turnChoices(realTurns);
  const picked = await pickOne<TurnChoice>(choices, {
    title: `${TITLE} (2/5): how much of the conversation to inherit`,
    placeholder: `${turnsHint(realTurns)} All, or the last N real turns.`,
    active: choices.find(c => c.value === preferred),
  });
  if (!picked) return undefined;
  if (picked.value) return picked.value;
  return vscode.window.showInputBox({
    title: `${TITLE} (2/5): custom turn count`,
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
  const picked = await pickOne(choices, { title: `${TITLE} (3/5): isolation`, placeholder: 'Where the fork works', active: choices.find(c => c.value === preferred) });
  return picked?.value;
}

async function pickModel(parentModel: string, listed: readonly ModelOption[]): Promise<string | undefined> {
  const choices = forkModelOptions(parentModel, listed).map((m, i): vscode.QuickPickItem & { value: string } => ({
    label: m.name === m.id ? m.id : `${m.name} (${m.id})`,
    description: i === 0 ? "this chat's model: the fork reads its prompt cache" : 'cold cache: no shared prompt cache, costs more',
    value: m.id,
  }));
  const picked = await pickOne(choices, { title: `${TITLE} (4/5): model`, placeholder: `The chat's model (${parentModel}) shares its prompt cache; another starts cold.`, active: choices[0] });
  return picked?.value;
}

async function pickAttempts(): Promise<number | undefined> {
  const choices = [1, 2, 3, 4, 8].map((n): vscode.QuickPickItem & { value: number } => ({
    label: n === 1 ? '1 attempt' : `${n} attempts`,
    description: n === 1 ? 'one fork' : 'a tournament: each in its own worktree, verified, compared; you apply the best',
    value: n,
  }));
  const picked = await pickOne(choices, { title: `${TITLE} (5/5): attempts`, placeholder: 'How many attempts of this directive', active: choices[0] });
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
