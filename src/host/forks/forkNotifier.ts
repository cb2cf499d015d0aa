// Forks show in a status bar item (it opens the Forks panel) and in notifications: one when a fork
// finishes, with its report opened on request as a plain text document (model output is untrusted).
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ForkSummary } from '../../common/forks';
import { forkAnnounce, forkList, forkState } from '../../common/protocol/forks';
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
  // The runtime decides who announces a finished run (fork/announce), so a fork that ended while the
  // window reloaded is announced once afterwards, nothing is announced twice, and of several windows on
  // one store only one speaks. Nothing here depends on workspace storage surviving a reload.
  const claiming = new Set<string>();
  const announceOnce = (fork: ForkSummary) => {
    const key = `${fork.id}@${fork.endedAt ?? ''}`;
    if (fork.announced || claiming.has(key)) return;
    claiming.add(key);
    runtime.request(forkAnnounce, { forkId: fork.id }).then(
      ({ first }) => (first ? announce(fork) : undefined),
      () => claiming.delete(key),
    ).catch(() => undefined);
  };
  const onState = (fork: ForkSummary) => {
    forks.set(fork.id, fork);
    refresh();
    if (isTerminal(fork.state)) announceOnce(fork);
  };
  context.subscriptions.push(status, runtime.listen(forkState, params => onState(params.fork)));
  runtime.request(forkList, {}).then(({ forks: all }) => {
    for (const fork of all) {
      if (forks.has(fork.id)) continue;
      forks.set(fork.id, fork);
      if (isTerminal(fork.state)) announceOnce(fork);
    }
    refresh();
  }, () => undefined);
}

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
