// Until the Forks panel lands, forks show in a status bar item and in notifications: one when a fork
// finishes, with its report opened on request as a plain text document (model output is untrusted).
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ForkSummary } from '../../common/forks';
import { forkList, forkState } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';

export function registerForkNotifier(context: vscode.ExtensionContext, runtime: RuntimeApi): void {
  const forks = new Map<string, ForkSummary>();
  const status = vscode.window.createStatusBarItem('forkAgents.running', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Fork Agents: running forks';
  const refresh = () => {
    const running = [...forks.values()].filter(f => !isTerminal(f.state)).length;
    status.text = `$(repo-forked) ${running}`;
    status.tooltip = `${running} fork(s) running or queued`;
    if (running > 0) status.show();
    else status.hide();
  };
  const onState = (fork: ForkSummary) => {
    const before = forks.get(fork.id);
    forks.set(fork.id, fork);
    refresh();
    if (isTerminal(fork.state) && before && !isTerminal(before.state)) void announce(fork);
  };
  context.subscriptions.push(status, runtime.listen(forkState, params => onState(params.fork)));
  // Forks that ran while this window was away (e.g. across a reload) are listed, not re-announced.
  runtime.request(forkList, {}).then(({ forks: all }) => {
    for (const fork of all) if (!forks.has(fork.id)) forks.set(fork.id, fork);
    refresh();
  }, () => undefined);
}

async function announce(fork: ForkSummary): Promise<void> {
  const text = fork.state === 'completed' ? `Fork "${fork.name}" completed.` : `Fork "${fork.name}" ${fork.state}${fork.error ? `: ${fork.error}` : '.'}`;
  const show = fork.report ? 'Show Report' : undefined;
  const choice = await (fork.state === 'completed' ? vscode.window.showInformationMessage(text, ...(show ? [show] : [])) : vscode.window.showWarningMessage(text, ...(show ? [show] : [])));
  if (choice === show && fork.report) await showReport(fork);
}

export async function showReport(fork: ForkSummary): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content: `# Fork: ${fork.name}\n\n${fork.report ?? fork.error ?? ''}\n`, language: 'markdown' });
  await vscode.window.showTextDocument(doc, { preview: true });
}
