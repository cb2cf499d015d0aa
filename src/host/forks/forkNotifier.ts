// Forks show in a status bar item (it opens the Forks panel) and in notifications: one when a fork
// finishes, with its report opened on request as a read-only document (reportDocs.ts), and one per
// tournament once its verdict is in (tournamentNotice.ts) instead of one per attempt.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ForkSummary } from '../../common/forks';
import { forkAnnounce, forkCancel, forkList, forkReview, forkSend, forkState } from '../../common/protocol/forks';
import { BUDGET_FORMS, budgetText, parseBudget } from '../../common/budget';
import type { Budget } from '../../common/budget';
import { spendingText } from '../../common/forkDisplay';
import type { RuntimeApi } from '../runtimeApi';
import type { ForkEndsShown } from './forkEndsShown';
import type { ShowReport } from './reportDocs';
import { TournamentNotices } from './tournamentNotice';
import { WORKTREE_COMMANDS } from '../worktrees/rootPlan';

export function registerForkNotifier(context: vscode.ExtensionContext, runtime: RuntimeApi, endsShown: ForkEndsShown, showReport: ShowReport, log: Pick<vscode.LogOutputChannel, 'warn'>): void {
  const tournaments = new TournamentNotices(runtime, showReport, log);
  const forks = new Map<string, ForkSummary>();
  const status = vscode.window.createStatusBarItem('forkAgents.running', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Fork Agents: running forks';
  status.command = { command: 'forkAgents.showForks', title: 'Show Forks' };
  const refresh = () => {
    const running = [...forks.values()].filter(f => !isTerminal(f.state) && f.state !== 'paused-budget').length;
    const paused = [...forks.values()].filter(f => f.state === 'paused-budget').length;
    status.text = `$(repo-forked) ${running}${paused > 0 ? ` $(debug-pause) ${paused}` : ''}`;
    const spent = spendingText(forks.values());
    status.tooltip = `${running} fork(s) running or queued${paused > 0 ? `, ${paused} paused at their budget` : ''}${spent ? `. ${spent}` : ''}: show the Forks view`;
    if (running > 0 || paused > 0) status.show();
    else status.hide();
  };
  // The runtime decides who announces a finished run (fork/announce), so a fork that ended while the
  // window reloaded is announced once afterwards, nothing is announced twice, and of several windows on
  // one store only one speaks. Nothing here depends on workspace storage surviving a reload.
  const claiming = new Set<string>();
  const announceOnce = (fork: ForkSummary) => {
    const key = `${fork.id}@${fork.endedAt ?? ''}`;
    if (fork.announced || claiming.has(key)) return;
    // An attempt is announced with its tournament, once the verdict is in.
    if (fork.tournament) return tournaments.attemptEnded(fork);
    claiming.add(key);
    runtime.request(forkAnnounce, { forkId: fork.id }).then(
      // A chat answer that showed this end (its item, with the same actions) is the announcement.
      ({ first }) => (first && !endsShown.has(fork.id) ? announce(runtime, fork, showReport) : undefined),
      () => claiming.delete(key),
    // Safe to drop: a claim that failed (runtime gone) is tried again with the next fork/state; no notification is lost.
    ).catch(() => undefined);
  };
  const onState = (fork: ForkSummary) => {
    const before = forks.get(fork.id);
    forks.set(fork.id, fork);
    refresh();
    if (isTerminal(fork.state)) announceOnce(fork);
    // A pause is seen live by this window: it offers to continue or stop.
    if (fork.state === 'paused-budget' && before?.state !== 'paused-budget') void offerContinue(runtime, fork);
  };
  context.subscriptions.push(status, runtime.listen(forkState, params => onState(params.fork)));
  runtime.request(forkList, {}).then(({ forks: all }) => {
    for (const fork of all) {
      if (forks.has(fork.id)) continue;
      forks.set(fork.id, fork);
      if (isTerminal(fork.state)) announceOnce(fork);
    }
    refresh();
  }, (error: unknown) => {
    // Forks that ended before this window opened are announced by the next fork/state instead.
    log.warn(`Fork notices: could not list the forks: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** Continue (asking for the new budget) or Stop a fork paused at its budget. */
export async function offerContinue(runtime: RuntimeApi, fork: ForkSummary): Promise<void> {
  const choice = await vscode.window.showWarningMessage(`Fork "${fork.name}" paused: ${fork.pausedReason ?? 'its budget is reached.'}`, 'Continue…', 'Stop');
  if (choice === 'Stop') {
    await runtime.request(forkCancel, { forkId: fork.id });
  } else if (choice === 'Continue…') {
    const budget = await vscode.window.showInputBox({
      title: `New budget for "${fork.name}"`,
      prompt: `Dollars such as 0.50, or tokens such as 40000tokens. Now: ${fork.budget ? budgetText(fork.budget) : 'none'}.`,
      value: fork.budget ? suggestedBudget(fork.budget) : '',
      validateInput: value => (parseBudget(value).ok ? undefined : `A budget is ${BUDGET_FORMS}.`),
    });
    if (budget === undefined) return;
    await runtime.request(forkSend, { forkId: fork.id, budget }).catch(error => vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error)));
  }
}

function suggestedBudget(budget: Budget): string {
  return 'usd' in budget ? String(Math.round(budget.usd * 200) / 100) : `${budget.tokens * 2}tokens`;
}

/**
 * The fork-finished notice offers what applies: its report, and for a worktree fork that changed files,
 * Review (and Apply once it completed). A fork that changed nothing has nothing to review or apply.
 */
async function announce(runtime: RuntimeApi, fork: ForkSummary, showReport: ShowReport): Promise<void> {
  const text = fork.state === 'completed' ? `Fork "${fork.name}" completed.` : `Fork "${fork.name}" ${fork.state}${fork.error ? `: ${fork.error}` : '.'}`;
  const show = fork.report ? 'Show Report' : undefined;
  const changed = fork.worktree && !fork.worktree.discarded ? await changesOf(runtime, fork.id) : false;
  const actions = [show, changed ? 'Review' : undefined, changed && fork.state === 'completed' ? 'Apply' : undefined].filter((a): a is string => !!a);
  const choice = await (fork.state === 'completed' ? vscode.window.showInformationMessage(text, ...actions) : vscode.window.showWarningMessage(text, ...actions));
  if (choice === show && fork.report) await showReport(fork);
  else if (choice === 'Review') await vscode.commands.executeCommand(WORKTREE_COMMANDS.review, { forkId: fork.id });
  else if (choice === 'Apply') await vscode.commands.executeCommand(WORKTREE_COMMANDS.apply, { forkId: fork.id });
}

/** Whether the fork's worktree differs from its base; when the runtime cannot say, offer Review (it says at the click). */
async function changesOf(runtime: RuntimeApi, forkId: string): Promise<boolean> {
  try {
    return (await runtime.request(forkReview, { forkId })).files.length > 0;
  } catch {
    return true;
  }
}
