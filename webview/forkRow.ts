// One fork in the Forks list: name, state, origin, turns, isolation, elapsed time, usage; expandable to
// its live output, report (host-rendered markdown), pending approvals and actions.
import { describeSandbox } from '../src/common/sandbox';
import { costLine, durationText, elapsedMs, originLabel, stateLabel, turnsLabel, usageLine, workspaceLine, worktreeState } from '../src/common/forkDisplay';
import { parseBudget, raisedBudgetText } from '../src/common/budget';
import type { ForkState, ForkSummary } from '../src/common/forks';
import { isTerminal } from '../src/common/forks';
import type { ForkAction, ForkRowView, OutputItem, PendingApprovalView } from '../src/common/protocol/webview';
import { approvalAnswer, panelForkAction, panelForkCancel, panelForkContinue, panelForkSend } from '../src/common/protocol/webview';
import { CacheBars } from './cacheBars';
import { DamageNotice } from './damageNotice';
import { button, h, icon, setText, setTrustedHtml } from './dom';
import type { HostChannel } from './host';
import { OutputView, setLatest } from './outputView';

const STATE_ICONS: Record<ForkState, string> = {
  queued: 'clock',
  running: 'sync codicon-modifier-spin',
  'waiting-for-approval': 'shield',
  'paused-budget': 'debug-pause',
  completed: 'pass',
  failed: 'error',
  cancelled: 'circle-slash',
  interrupted: 'debug-pause',
};

export interface RowContext {
  channel: HostChannel;
  worktreeActions(): boolean;
  isExpanded(forkId: string): boolean;
  setExpanded(forkId: string, expanded: boolean): void;
  /** A short quote of the transcript message a fork started from, when it is shown. */
  messageSnippet(entryId: string | undefined): string | undefined;
  report(error: unknown): void;
  /** Opens the Compare view of a tournament's attempts. */
  compare(groupId: string): void;
}

export class ForkRow {
  readonly el: HTMLLIElement;
  private fork: ForkSummary;
  private readonly toggle: HTMLButtonElement;
  private readonly stateIcon = h('span', { 'aria-hidden': 'true' });
  private readonly nameEl = h('span', { class: 'fork-name' });
  private readonly badge = h('span', { class: 'badge' });
  private readonly inline = h('span', { class: 'inline-actions' });
  private readonly meta = h('div', { class: 'fork-meta' });
  private readonly elapsed = h('span', { class: 'elapsed' });
  private readonly usage = h('div', { class: 'fork-usage' });
  private readonly cost = h('div', { class: 'fork-cost' });
  private readonly paused = h('div', { class: 'fork-paused', role: 'group' });
  private readonly pausedText = h('p', { class: 'paused-reason' });
  private readonly budgetInput = h('input', { type: 'text', class: 'budget-input', 'aria-label': 'New budget: dollars such as 0.50, or tokens such as 40000tokens' });
  private readonly cacheBars = new CacheBars();
  private readonly damage = new DamageNotice('fork');
  private readonly workspace = h('div', { class: 'fork-workspace' });
  /** Where its commands run: the OS sandbox and its network policy (the isolation beside worktree/shared in the meta line). */
  private readonly sandboxEl = h('div', { class: 'fork-sandbox' });
  private readonly latest = h('div', { class: 'fork-latest' });
  private readonly approvals = h('div', { class: 'approvals' });
  private readonly body: HTMLDivElement;
  private readonly directive = h('div', { class: 'fork-directive' });
  private readonly error = h('div', { class: 'fork-error', role: 'status' });
  private readonly report = h('div', { class: 'report markdown' });
  private readonly reportSection = h('section', { class: 'report-section', 'aria-label': 'Report' }, h('h3', {}, 'Report'), this.report);
  private readonly outputDetails = h('details', { class: 'output-details' });
  private readonly output = new OutputView();
  private readonly actions = h('div', { class: 'fork-actions' });
  private readonly continueForm: HTMLFormElement;
  private shownState?: string;
  private shownReport?: string;

  constructor(view: ForkRowView, private items: OutputItem[], private readonly ctx: RowContext) {
    this.fork = view.fork;
    const bodyId = `fork-body-${view.fork.id}`;
    this.toggle = h('button', { type: 'button', class: 'fork-toggle', 'aria-controls': bodyId }, icon('chevron-right', 'twistie'), this.stateIcon, this.nameEl);
    this.toggle.addEventListener('click', () => this.setExpanded(!this.ctx.isExpanded(this.fork.id)));
    this.body = h('div', { class: 'fork-body', id: bodyId });
    this.outputDetails.append(h('summary', {}, 'Output'), this.output.el);
    const message = h('textarea', { rows: 2, placeholder: 'Continue this fork with a message…', 'aria-label': `Message to continue ${view.fork.name}` });
    this.continueForm = h('form', { class: 'continue-form' }, message, h('button', { type: 'submit', class: 'button secondary', title: 'Continue the fork with this message (Ctrl+Enter)' }, icon('send'), h('span', { class: 'label' }, 'Continue')));
    this.continueForm.addEventListener('submit', event => {
      event.preventDefault();
      const text = message.value.trim();
      if (!text) return message.focus();
      ctx.channel.request(panelForkSend, { forkId: this.fork.id, message: text }).then(() => (message.value = ''), ctx.report);
    });
    message.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) this.continueForm.requestSubmit();
    });
    this.paused.append(
      this.pausedText,
      h('div', { class: 'paused-buttons' },
        this.budgetInput,
        button('Continue', { kind: 'primary', icon: 'debug-continue', title: 'Continue with this budget', onClick: () => this.continueWithBudget() }),
        button('Stop', { icon: 'debug-stop', title: `Stop ${view.fork.name}`, onClick: () => void ctx.channel.request(panelForkCancel, { forkId: this.fork.id }).catch(ctx.report) }),
      ),
    );
    this.budgetInput.addEventListener('keydown', event => {
      if (event.key === 'Enter') this.continueWithBudget();
    });
    this.body.append(this.directive, this.error, this.reportSection, this.outputDetails, this.cacheBars.el, this.actions, this.continueForm);
    this.el = h('li', { class: 'fork', 'data-fork-id': view.fork.id },
      h('div', { class: 'fork-head' }, this.toggle, this.badge, this.inline), this.meta, this.usage, this.cost, this.workspace, this.sandboxEl, this.damage.el, this.paused, this.latest, this.approvals, this.body);
    this.update(view);
    this.output.reset(items);
    this.setExpanded(ctx.isExpanded(view.fork.id), false);
  }

  get id(): string {
    return this.fork.id;
  }

  get summary(): ForkSummary {
    return this.fork;
  }

  update(view: ForkRowView): void {
    const fork = view.fork;
    // Actions depend on the state and on what became of a worktree (applied, discarded).
    const actionsKey = `${fork.state}|${worktreeState(fork) ?? ''}`;
    const stateChanged = this.shownState !== actionsKey;
    this.fork = fork;
    this.el.dataset.state = fork.state;
    setText(this.nameEl, fork.name);
    // The name may be the directive cut at a word: the whole of it on hover.
    this.nameEl.title = fork.directive;
    // What became of a worktree fork's changes is what the user wants to know once it has ended.
    const shown = (isTerminal(fork.state) ? worktreeState(fork) : undefined) ?? stateLabel(fork.state);
    this.toggle.setAttribute('aria-label', `${fork.name}, ${shown}`);
    this.stateIcon.className = `codicon codicon-${STATE_ICONS[fork.state]} state-icon`;
    setText(this.badge, shown);
    this.badge.className = `badge state-${fork.state}`;
    const origin = fork.origin === 'message' ? `from message${quote(this.ctx.messageSnippet(fork.parentEntryId))}` : originLabel(fork.origin);
    const model = fork.parentModel ? ` · ${fork.model} (cold cache)` : '';
    const attempt = fork.tournament ? ` · attempt ${fork.tournament.attempt} of ${fork.tournament.of}` : '';
    const verified = fork.verify ? ` · verify ${fork.verify.passed ? 'passed' : 'failed'}` : '';
    this.meta.replaceChildren(`${origin} · ${turnsLabel(fork.forkTurns, fork.summaryExcluded)} · ${fork.isolation}${model}${attempt}${verified} · `, this.elapsed);
    this.tick(Date.now());
    const usage = usageLine(fork);
    setText(this.usage, usage.text);
    this.usage.title = usage.title;
    const cost = costLine(fork);
    setText(this.cost, cost.text);
    this.cost.title = cost.title;
    this.cost.hidden = cost.text === '';
    const isPaused = fork.state === 'paused-budget';
    this.paused.hidden = !isPaused;
    this.paused.setAttribute('aria-label', `${fork.name} is paused at its budget`);
    setText(this.pausedText, fork.pausedReason ?? 'Paused: its budget is reached.');
    if (isPaused && stateChanged) this.budgetInput.value = raisedBudgetText(fork.budget);
    this.cacheBars.set(fork.cacheSteps, { forkTurns: fork.forkTurns });
    this.damage.set(fork.damage);
    const workspace = workspaceLine(fork);
    setText(this.workspace, workspace);
    this.workspace.hidden = workspace === '';
    const sandboxText = fork.sandbox ? describeSandbox(fork.sandbox) : '';
    if (this.sandboxEl.dataset.text !== sandboxText) {
      this.sandboxEl.dataset.text = sandboxText;
      this.sandboxEl.replaceChildren(...(fork.sandbox?.on ? [icon('shield'), ' '] : []), sandboxText);
    }
    this.sandboxEl.title = fork.sandbox?.note ?? '';
    this.sandboxEl.hidden = !fork.sandbox;
    setText(this.directive, fork.directive);
    // The name is the directive's first words: quote the directive only when it says more.
    this.directive.hidden = fork.directive.trim() === fork.name.trim();
    setText(this.error, fork.error ?? '');
    this.error.hidden = !fork.error;
    if (view.reportHtml !== this.shownReport) {
      this.shownReport = view.reportHtml;
      setTrustedHtml(this.report, view.reportHtml ?? '');
    }
    this.reportSection.hidden = !view.reportHtml;
    if (stateChanged) {
      this.shownState = actionsKey;
      // Output is the story while the fork runs; once it reports, the report is.
      this.outputDetails.open = !isTerminal(fork.state) || !view.reportHtml;
      this.renderActions();
    }
    this.continueForm.hidden = !isTerminal(fork.state) || fork.worktree?.discarded === true;
    setLatest(this.latest, isTerminal(fork.state) ? [] : this.items);
  }

  private continueWithBudget(): void {
    const budget = this.budgetInput.value.trim();
    if (!parseBudget(budget).ok) {
      this.ctx.report(new Error('A budget is dollars such as 0.50, or tokens such as 40000tokens.'));
      return this.budgetInput.focus();
    }
    this.ctx.channel.request(panelForkContinue, { forkId: this.fork.id, budget }).catch(this.ctx.report);
  }

  setOutput(items: OutputItem[], changed?: ReadonlySet<number>): void {
    this.items = items;
    if (changed) this.output.update(items, changed);
    else this.output.reset(items);
    setLatest(this.latest, isTerminal(this.fork.state) ? [] : items);
  }

  setApprovals(approvals: readonly PendingApprovalView[]): void {
    this.approvals.replaceChildren(...approvals.map(a => this.approval(a)));
    this.approvals.hidden = approvals.length === 0;
  }

  tick(now: number): void {
    setText(this.elapsed, durationText(elapsedMs(this.fork, now)));
  }

  setExpanded(expanded: boolean, remember = true): void {
    if (remember) this.ctx.setExpanded(this.fork.id, expanded);
    this.toggle.setAttribute('aria-expanded', String(expanded));
    this.el.classList.toggle('expanded', expanded);
    this.body.hidden = !expanded;
  }

  private renderActions(): void {
    const fork = this.fork;
    const live = !isTerminal(fork.state);
    const act = (action: ForkAction) => () => void this.ctx.channel.request(panelForkAction, { forkId: fork.id, action }).catch(this.ctx.report);
    const stop = () => void this.ctx.channel.request(panelForkCancel, { forkId: fork.id }).catch(this.ctx.report);
    this.inline.replaceChildren(...(live ? [button('Stop', { icon: 'debug-stop', kind: 'icon', title: `Stop ${fork.name}`, onClick: stop })] : []));
    const worktree = this.ctx.worktreeActions() && fork.isolation === 'worktree' && fork.worktree && !fork.worktree.discarded;
    this.actions.replaceChildren(
      // A paused row has its own Stop beside Continue.
      ...(live && fork.state !== 'paused-budget' ? [button('Stop', { icon: 'debug-stop', kind: 'toolbar', title: `Stop ${fork.name}`, onClick: stop })] : []),
      ...(fork.tournament ? [button('Compare', { icon: 'split-horizontal', kind: 'toolbar', title: 'Compare the attempts side by side', onClick: () => this.ctx.compare(fork.tournament!.groupId) })] : []),
      button('Transcript', { icon: 'output', kind: 'toolbar', title: 'Open the transcript', onClick: act('transcript') }),
      // A discarded worktree has no folder left to show.
      ...(fork.worktree?.discarded ? [] : [button('Folder', { icon: 'folder-opened', kind: 'toolbar', title: `Reveal ${fork.root}`, onClick: act('root') })]),
      ...(worktree ? [button('Review', { icon: 'diff', kind: 'toolbar', title: 'Review the changes', onClick: act('review') })] : []),
      ...(worktree && !live ? [button('Apply', { icon: 'check-all', kind: 'toolbar', title: 'Apply the changes to the main working tree', onClick: act('apply') })] : []),
      ...(worktree && !live ? [button('Keep', { icon: 'git-commit', kind: 'toolbar', title: 'Commit the worktree to its branch and keep it', onClick: act('keep') })] : []),
      ...(worktree && !live ? [button('Discard', { icon: 'trash', kind: 'toolbar', title: 'Delete the worktree and branch', onClick: act('discard') })] : []),
    );
  }

  private approval(approval: PendingApprovalView): HTMLElement {
    // The runtime prefixes the fork's name for the modal; in the fork's own row it is noise.
    const prefix = `${this.fork.name}: `;
    const description = approval.description.startsWith(prefix) ? approval.description.slice(prefix.length) : approval.description;
    const answer = (approved: boolean) => () => void this.ctx.channel.request(approvalAnswer, { callId: approval.callId, approved }).catch(this.ctx.report);
    return h(
      'div',
      { class: 'approval', role: 'group', 'aria-label': `Approval needed: ${description}` },
      h('div', { class: 'approval-title' }, icon('shield'), h('span', {}, description)),
      h('pre', { class: 'approval-detail' }, approval.detail),
      h(
        'div',
        { class: 'approval-buttons' },
        button('Approve', { kind: 'primary', icon: 'check', title: `Approve: ${description}`, onClick: answer(true) }),
        button('Deny', { icon: 'close', title: `Deny: ${description}`, onClick: answer(false) }),
      ),
    );
  }
}

function quote(snippet: string | undefined): string {
  return snippet ? ` “${snippet}”` : '';
}
