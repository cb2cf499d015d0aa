// The Compare view's hunk picker: each attempt's hunks with a tick box, and one action that applies the
// ticked hunks of several attempts as one result. The runtime checks the choice (tournament/apply with
// `hunks`): hunks of different attempts that touch the same lines come back as conflicts, are marked
// here, and nothing is written. Hunk text is model output: it goes in as text only.
import type { AttemptComparison, AttemptHunk, HunkConflictInfo, TournamentCompareResult } from '../src/common/protocol/forks';
import { panelTournamentApply } from '../src/common/protocol/webview';
import type { PanelTournamentApplied } from '../src/common/protocol/webview';
import { button, h, icon, setText } from './dom';
import type { HostChannel } from './host';

export class HunkPicker {
  /** `forkId#number`, kept across re-renders (the view refreshes whenever an attempt ends). */
  private readonly chosen = new Set<string>();
  private readonly boxes = new Map<string, { box: HTMLInputElement; item: HTMLElement }>();
  private readonly count = h('span', { class: 'hunk-count', role: 'status' });
  private readonly conflicts = h('div', { class: 'hunk-conflicts', role: 'alert', hidden: true });
  private readonly applyButton: HTMLButtonElement;
  private result?: TournamentCompareResult;

  constructor(private readonly channel: HostChannel, private readonly report: (error: unknown) => void, private readonly done: (message: string) => void) {
    this.applyButton = button('Apply chosen hunks', {
      icon: 'git-merge', kind: 'primary', title: 'Apply the ticked hunks of every attempt to the main working tree as one result', onClick: () => void this.apply(),
    });
  }

  /** Starts a render of the view: forgets boxes of the previous one and choices that no longer exist. */
  reset(result: TournamentCompareResult): void {
    this.result = result;
    this.boxes.clear();
    const exists = new Set(result.attempts.flatMap(a => a.hunks.map(hunk => keyOf(a.forkId, hunk.number))));
    for (const key of [...this.chosen]) if (!exists.has(key)) this.chosen.delete(key);
  }

  /** One attempt's hunks, each with its tick box. */
  list(attempt: AttemptComparison): HTMLElement | string {
    if (attempt.hunks.length === 0) return '';
    return h('details', { class: 'attempt-hunks', open: true },
      h('summary', {}, `Hunks (${attempt.hunks.length})`),
      h('ul', {}, ...attempt.hunks.map(hunk => this.item(attempt, hunk))));
  }

  /** The picker's bar: how many are ticked, Apply, Clear, and the conflicts of the last try. */
  bar(): HTMLElement {
    this.update();
    return h('div', { class: 'hunk-picker' }, this.count, ' ', this.applyButton, ' ',
      button('Clear', { icon: 'clear-all', title: 'Untick every hunk', onClick: () => this.clear() }), this.conflicts);
  }

  private item(attempt: AttemptComparison, hunk: AttemptHunk): HTMLElement {
    const key = keyOf(attempt.forkId, hunk.number);
    const id = `hunk-${attempt.attempt}-${hunk.number}`;
    const box = h('input', { type: 'checkbox', id, checked: this.chosen.has(key), 'aria-label': `Attempt ${attempt.attempt}, hunk ${hunk.number}: ${hunk.path}` });
    const item = h('li', { class: 'hunk', 'data-attempt': attempt.attempt, 'data-hunk': hunk.number },
      h('div', { class: 'hunk-head' }, box, h('label', { for: id }, `${hunk.number}. ${hunk.path} `, h('code', {}, hunk.header))),
      h('pre', { class: 'hunk-body' }, hunk.body + (hunk.moreLines ? `\n… ${hunk.moreLines} more lines` : '')));
    box.addEventListener('change', () => {
      if (box.checked) this.chosen.add(key);
      else this.chosen.delete(key);
      this.showConflicts([]);
      this.update();
    });
    this.boxes.set(key, { box, item });
    return item;
  }

  private update(): void {
    const attempts = new Set([...this.chosen].map(key => key.split('#')[0]));
    setText(this.count, this.chosen.size === 0 ? 'Tick hunks to merge them.' : `${this.chosen.size} hunk${this.chosen.size === 1 ? '' : 's'} from ${attempts.size} attempt${attempts.size === 1 ? '' : 's'} chosen.`);
    this.applyButton.disabled = this.chosen.size === 0;
  }

  private clear(): void {
    this.chosen.clear();
    for (const { box } of this.boxes.values()) box.checked = false;
    this.showConflicts([]);
    this.update();
  }

  private async apply(): Promise<void> {
    const result = this.result;
    if (!result || this.chosen.size === 0) return;
    // Per attempt in the view's order, numbers ascending: the runtime numbers hunks the same way.
    const hunks = result.attempts
      .map(a => ({ attempt: a.forkId, hunks: a.hunks.map(hunk => hunk.number).filter(n => this.chosen.has(keyOf(a.forkId, n))) }))
      .filter(c => c.hunks.length > 0);
    let outcome: PanelTournamentApplied;
    try {
      outcome = await this.channel.request(panelTournamentApply, { groupId: result.group.id, hunks });
    } catch (error) {
      this.report(error);
      return;
    }
    this.showConflicts(outcome.hunkConflicts, outcome.conflicts);
    this.done(outcome.message);
  }

  private showConflicts(conflicts: readonly HunkConflictInfo[], withMain: readonly string[] = []): void {
    for (const { item } of this.boxes.values()) item.classList.remove('conflict');
    const byLabel = new Map((this.result?.attempts ?? []).map(a => [`attempt ${a.attempt}`, a.forkId]));
    for (const c of conflicts) {
      c.between.forEach((label, i) => this.boxes.get(keyOf(byLabel.get(label) ?? '', c.hunks[i]))?.item.classList.add('conflict'));
    }
    const lines = [
      ...conflicts.map(c => `${c.path}: ${c.between[0]} hunk ${c.hunks[0]} and ${c.between[1]} hunk ${c.hunks[1]} — ${c.reason}`),
      ...withMain.map(problem => `main working tree: ${problem}`),
    ];
    this.conflicts.hidden = lines.length === 0;
    this.conflicts.replaceChildren(...(lines.length === 0 ? [] : [
      h('p', {}, icon('warning'), conflicts.length > 0
        ? ' Not applied — chosen hunks conflict with each other; nothing was written. Untick one side of each:'
        : ' Not applied — the chosen hunks do not fit the main working tree; nothing was written:'),
      h('ul', {}, ...lines.map(line => h('li', {}, line))),
    ]));
  }
}

function keyOf(forkId: string, number: number): string {
  return `${forkId}#${number}`;
}
