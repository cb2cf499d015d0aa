// One notification per tournament, not one per attempt: when an attempt ends, the window waits for the
// group's verdict (tournament/wait) and then says once who won and how each attempt did. Its attempts are
// claimed through fork/announce like any fork, so a reload or a second window does not repeat it, and no
// attempt gets a "completed" toast of its own.
import * as vscode from 'vscode';
import type { ForkSummary } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import { shortText } from '../../common/forkDisplay';
import { forkAnnounce, tournamentWait } from '../../common/protocol/forks';
import type { AttemptComparison, TournamentCompareResult } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import type { ShowReport } from './reportDocs';

export class TournamentNotices {
  /** Groups whose verdict this window waits for, or has announced. */
  private readonly groups = new Set<string>();

  constructor(private readonly runtime: RuntimeApi, private readonly showReport: ShowReport, private readonly log: Pick<vscode.LogOutputChannel, 'warn'>) {}

  /** An attempt of a tournament ended (or was listed ended and not yet announced). */
  attemptEnded(fork: ForkSummary): void {
    const groupId = fork.tournament?.groupId;
    if (!groupId || this.groups.has(groupId)) return;
    this.groups.add(groupId);
    this.runtime.request(tournamentWait, { groupId }).then(async result => {
      // Resolved without a verdict while attempts still run: they paused at the group's budget (their own
      // notice offers to continue). The next attempt that ends waits again.
      if (!result.group.verdict && result.attempts.some(a => !isTerminal(a.state))) {
        this.groups.delete(groupId);
        return;
      }
      const claims = await Promise.all(result.group.forkIds.map(forkId => this.runtime.request(forkAnnounce, { forkId }).then(r => r.first, () => false)));
      if (claims.some(Boolean)) await this.announce(result);
    }, () => this.groups.delete(groupId)).catch((error: unknown) => {
      // The wait failed (runtime gone: the next attempt that ends waits again) or the notice itself did.
      this.log.warn(`Tournament ${groupId}: the verdict could not be shown: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private async announce(result: TournamentCompareResult): Promise<void> {
    const { text, winner } = tournamentNoticeText(result);
    const report = winner?.report ? 'Show Winner\'s Report' : undefined;
    const actions = ['Show Forks', ...(report ? [report] : [])];
    const choice = await (winner ? vscode.window.showInformationMessage(text, ...actions) : vscode.window.showWarningMessage(text, ...actions));
    if (choice === 'Show Forks') await vscode.commands.executeCommand('forkAgents.showForks');
    else if (choice === report && winner) await this.showReport({ id: winner.forkId, name: winner.name });
  }
}

/** The notice's sentence: the directive, the verdict, then one clause per attempt. */
export function tournamentNoticeText(result: TournamentCompareResult): { text: string; winner?: AttemptComparison } {
  const verdict = result.group.verdict;
  const winner = verdict?.winner ? result.attempts.find(a => a.forkId === verdict.winner) : undefined;
  const head = `Tournament “${shortText(result.group.directive)}” (${result.attempts.length} attempts)`;
  const outcome = winner ? `attempt ${winner.attempt} won` : (verdict?.reason ?? 'no winner').replace(/\.$/, '');
  const each = [...result.attempts].sort((a, b) => a.attempt - b.attempt).map(attemptClause).join('; ');
  return { text: `${head}: ${outcome}. A${each.slice(1)}.`, winner };
}

function attemptClause(a: AttemptComparison): string {
  const state = a.state === 'completed' ? 'completed' : a.state === 'paused-budget' ? 'paused at the budget' : a.state;
  const verify = a.verify ? (a.verify.passed ? ', verify passed' : a.verify.exitCode === null ? ', verify did not finish' : `, verify failed (exit ${a.verify.exitCode})`) : '';
  const files = a.files.length;
  const changes = files === 0 ? ', no changes' : `, ${files} file${files === 1 ? '' : 's'} +${a.added} −${a.removed}`;
  return `attempt ${a.attempt} ${state}${verify}${changes}`;
}
