// A tournament's Compare view in the Forks panel: its attempts side by side (state, verify pass/fail and
// output, files changed and lines ±, cost, cache share, report), the verdict with its reasons, a diff
// between two attempts, Apply for the winner (or any attempt), and hunks ticked from several attempts
// applied as one result (hunkPicker.ts). Everything shown is text.
import { stateLabel } from '../src/common/forkDisplay';
import { usdText } from '../src/common/pricing';
import type { AttemptComparison, TournamentCompareResult } from '../src/common/protocol/forks';
import { panelTournamentApply, panelTournamentCompare, panelTournamentDiff } from '../src/common/protocol/webview';
import { button, h, icon, setText } from './dom';
import type { HostChannel } from './host';
import { HunkPicker } from './hunkPicker';

export class CompareView {
  readonly el = h('section', { class: 'compare', 'aria-label': 'Compare attempts', hidden: true });
  private groupId?: string;
  private readonly status = h('p', { class: 'compare-status', role: 'status' });
  private readonly hunks: HunkPicker;

  constructor(private readonly channel: HostChannel, private readonly report: (error: unknown) => void) {
    this.hunks = new HunkPicker(channel, report, message => setText(this.status, message));
  }

  /** Opens (or refreshes) the view for a group. */
  async show(groupId: string): Promise<void> {
    // The last action's message belongs to the group it was taken on.
    if (groupId !== this.groupId) setText(this.status, '');
    this.groupId = groupId;
    this.el.hidden = false;
    try {
      this.render(await this.channel.request(panelTournamentCompare, { groupId }));
      this.el.scrollIntoView({ block: 'nearest' });
    } catch (error) {
      this.report(error);
    }
  }

  /** A fork of the shown group changed: refresh. */
  refreshIf(groupId: string | undefined): void {
    if (groupId && groupId === this.groupId && !this.el.hidden) void this.show(groupId);
  }

  private render(result: TournamentCompareResult): void {
    this.hunks.reset(result);
    const verdict = result.group.verdict;
    const winner = verdict?.winner ?? undefined;
    const head = h('div', { class: 'compare-head' },
      h('h3', {}, `Compare: ${result.group.directive}`),
      button('Close', { icon: 'close', kind: 'icon', title: 'Close the comparison', onClick: () => (this.el.hidden = true) }));
    const verdictLine = h('p', { class: `verdict ${winner ? 'has-winner' : 'no-winner'}`, role: 'status' },
      icon(winner ? 'star-full' : verdict ? 'circle-slash' : 'clock'), ' ',
      verdict ? verdict.reason : 'No verdict yet: the attempts are still running (or paused at the budget).');
    // Columns by CSS (the panel's CSP allows no inline styles): one per attempt, side by side.
    const columns = h('div', { class: 'attempts' },
      ...result.attempts.map(a => this.column(a, a.forkId === winner, verdict?.ranking.find(r => r.forkId === a.forkId)?.reason)));
    const diffOut = h('pre', { class: 'attempt-diff', hidden: true });
    const pickA = this.picker('compare-a', result.attempts, 0);
    const pickB = this.picker('compare-b', result.attempts, 1);
    const diffRow = h('div', { class: 'diff-row' },
      h('label', { for: 'compare-a' }, 'Diff attempt '), pickA, h('label', { for: 'compare-b' }, ' → '), pickB, ' ',
      button('Show diff', { icon: 'diff', title: 'What the second attempt changes against the first', onClick: () => {
        this.channel.request(panelTournamentDiff, { groupId: result.group.id, a: pickA.value, b: pickB.value }).then(({ patch }) => {
          diffOut.hidden = false;
          setText(diffOut, patch || '(no difference)');
        }, this.report);
      } }));
    const anyHunks = result.attempts.some(a => a.hunks.length > 0);
    this.el.replaceChildren(head, verdictLine, columns, anyHunks ? this.hunks.bar() : '', result.attempts.length > 1 ? diffRow : '', diffOut, this.status);
  }

  private column(a: AttemptComparison, isWinner: boolean, rankReason: string | undefined): HTMLElement {
    const verify = a.verify
      ? h('div', { class: `verify ${a.verify.passed ? 'pass' : 'fail'}` }, icon(a.verify.passed ? 'pass' : 'error'), ' ',
        `verify ${a.verify.passed ? 'passed' : 'failed'} (exit ${a.verify.exitCode ?? '–'}, ${(a.verify.durationMs / 1000).toFixed(1)} s)`)
      : h('div', { class: 'verify none' }, 'not verified');
    const output = a.verify ? h('details', { class: 'verify-output' }, h('summary', {}, 'Verify output'), h('pre', {}, a.verify.outputTail || '(no output)')) : '';
    const cost = a.cost ? usdText(a.cost.usd) : 'no price';
    const cache = a.cacheShare === undefined ? '' : ` · cache ${(a.cacheShare * 100).toFixed(0)}%`;
    const apply = button(isWinner ? 'Apply winner' : 'Apply', {
      icon: 'check-all', kind: isWinner ? 'primary' : 'secondary', title: `Apply attempt ${a.attempt} to the main working tree`,
      onClick: () => {
        this.channel.request(panelTournamentApply, { groupId: this.groupId!, forkId: a.forkId }).then(r => setText(this.status, r.message), this.report);
      },
    });
    return h('article', { class: `attempt${isWinner ? ' winner' : ''}`, 'data-attempt': a.attempt, 'aria-label': `Attempt ${a.attempt}` },
      h('h4', {}, `#${a.attempt}${isWinner ? ' ★' : ''} `, h('span', { class: `badge state-${a.state}` }, stateLabel(a.state))),
      a.model ? h('div', { class: 'attempt-model' }, a.model) : '',
      a.coldCache ? h('div', { class: 'note warning' }, a.coldCache) : '',
      verify, output,
      h('div', { class: 'attempt-changes' }, `${a.files.length} file${a.files.length === 1 ? '' : 's'} +${a.added} −${a.removed}`),
      h('ul', { class: 'attempt-files' }, ...a.files.map(f => h('li', {}, `${f.status[0].toUpperCase()} ${f.path}`))),
      h('div', { class: 'attempt-cost' }, `${cost}${cache}`),
      rankReason ? h('p', { class: 'attempt-rank' }, rankReason) : '',
      a.pausedReason ? h('p', { class: 'note warning' }, a.pausedReason) : '',
      a.error ? h('p', { class: 'fork-error' }, a.error) : '',
      this.hunks.list(a),
      h('details', { class: 'attempt-report' }, h('summary', {}, 'Report'), h('pre', {}, a.report ?? '(none yet)')),
      h('div', { class: 'attempt-actions' }, apply));
  }

  private picker(id: string, attempts: readonly AttemptComparison[], selected: number): HTMLSelectElement {
    const select = h('select', { id });
    select.replaceChildren(...attempts.map((a, i) => h('option', { value: a.forkId, selected: i === selected }, `#${a.attempt}`)));
    return select;
  }
}
