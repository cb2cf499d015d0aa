// Forks show in a status bar item (it opens the Forks panel) and in notifications: one when a fork
// finishes, with its report opened on request as a plain text document (model output is untrusted).
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ForkSummary } from '../../common/forks';
import { forkList, forkState } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import { WORKTREE_COMMANDS } from '../worktrees/rootPlan';

export function registerForkNotifier(context: vscode.ExtensionContext, runtime: RuntimeApi): void {
  const forks = new Map<string, ForkSummary>();
  const status = vscode.window.createStatusBarItem('forkAgents.running', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Fork Agents: running forks';
  status.command = { command: 'forkAgents.showForks', title: 'Show Forks' };
  const refresh = () => {
    const running = [...forks.values()].filter(f => !isTerminal(f.state)).length;
    status.text = `$(repo-forked) ${running}`;
    status.tooltip = `${running} fork(s) running or queued: show the Forks view`;
    if (running > 0) status.show();
    else status.hide();
  };
  // Announced reports are remembered per workspace, so a fork that finished while the window was
  // reloading is announced once afterwards, and nothing is announced twice.
  const announced = new Set(context.workspaceState.get<string[]>(ANNOUNCED_KEY, []));
  const announceOnce = (fork: ForkSummary) => {
    const key = `${fork.id}@${fork.endedAt ?? ''}`;
    if (announced.has(key)) return;
    announced.add(key);
    void context.workspaceState.update(ANNOUNCED_KEY, [...announced].slice(-500));
    void announce(fork);
  };
  const onState = (fork: ForkSummary) => {
    forks.set(fork.id, fork);
    refresh();
    if (isTerminal(fork.state)) announceOnce(fork);
  };
  context.subscriptions.push(status, runtime.listen(forkState, params => onState(params.fork)));
  runtime.request(forkList, {}).then(({ forks: all }) => {
    const firstRun = !context.workspaceState.get(ANNOUNCED_KEY);
    for (const fork of all) {
      if (forks.has(fork.id)) continue;
      forks.set(fork.id, fork);
      // On a first activation, old history is not news.
      if (isTerminal(fork.state) && !firstRun) announceOnce(fork);
    }
    if (firstRun) void context.workspaceState.update(ANNOUNCED_KEY, [...announced, ...all.map(f => `${f.id}@${f.endedAt ?? ''}`)]);
    refresh();
  }, () => undefined);
}

const ANNOUNCED_KEY = 'forkAgents.announcedForks';

async function announce(fork: ForkSummary): Promise<void> {
  const text = fork.state === 'completed' ? `Fork "${fork.name}" completed.` : `Fork "${fork.name}" ${fork.state}${fork.error ? `: ${fork.error}` : '.'}`;
  const show = fork.report ? 'Show Report' : undefined;
  // A worktree fork's changes wait in its worktree: review them, or apply those of a completed fork.
  const worktree = fork.worktree && !fork.worktree.discarded;
  const actions = [show, worktree ? 'Review' : undefined, worktree && fork.state === 'completed' ? 'Apply' : undefined].filter((a): a is string => !!a);
  const choice = await (fork.state === 'completed' ? vscode.window.showInformationMessage(text, ...actions) : vscode.window.showWarningMessage(text, ...actions));
  if (choice === show && fork.report) await showReport(fork);
  else if (choice === 'Review') await vscode.commands.executeCommand(WORKTREE_COMMANDS.review, { forkId: fork.id });
  else if (choice === 'Apply') await vscode.commands.executeCommand(WORKTREE_COMMANDS.apply, { forkId: fork.id });
}

export async function showReport(fork: ForkSummary): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content: `# Fork: ${fork.name}\n\n${fork.report ?? fork.error ?? ''}\n`, language: 'markdown' });
  await vscode.window.showTextDocument(doc, { preview: true });
}
