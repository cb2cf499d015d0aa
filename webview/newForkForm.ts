// The New fork form: directive, the turn-count picker — All, or the last N real turns, N
// checked by the one fork_turns parser with its message shown inline — isolation, the model (the chat's
// preselected: it shares the prompt cache; another says the fork starts cold), and Start.
import type { Isolation } from '../src/common/forks';
import { windowSkipsSummary } from '../src/common/forkWindow';
import { parseForkTurns } from '../src/common/forkTurns';
import { MAX_ATTEMPTS } from '../src/common/tournament';
import { coldCacheText, forkModelOptions, sameModelText } from '../src/common/modelChoice';
import type { ModelOption } from '../src/common/modelChoice';
import type { ForkTurnsResult } from '../src/common/forkTurns';
import { panelForkStart, pickerChanged } from '../src/common/protocol/webview';
import type { SessionView } from '../src/common/protocol/webview';
import { h, icon, setText } from './dom';
import type { HostChannel } from './host';

export interface FormState { directive: string; turnsMode: 'all' | 'n'; turnsN: string; isolation?: Isolation }

export class NewForkForm {
  readonly el: HTMLFormElement;
  private readonly directive = h('textarea', { id: 'directive', rows: 3, placeholder: 'What should the fork do?', 'aria-describedby': 'form-error' });
  private readonly all = h('input', { type: 'radio', name: 'turns', id: 'turns-all', value: 'all' });
  private readonly last = h('input', { type: 'radio', name: 'turns', id: 'turns-last', value: 'n' });
  private readonly n = h('input', {
    type: 'text', id: 'turns-n', inputmode: 'numeric', size: 4, autocomplete: 'off', spellcheck: 'false',
    'aria-label': 'Number of recent real turns to inherit', 'aria-describedby': 'turns-hint turns-error turns-note',
  });
  private readonly hint = h('div', { class: 'hint', id: 'turns-hint' });
  private readonly note = h('div', { class: 'note', id: 'turns-note' }, icon('info'), ' The summary is not included; use All.');
  private readonly turnsError = h('div', { class: 'field-error', id: 'turns-error', role: 'alert' });
  private readonly isolation = h('select', { id: 'isolation' },
    h('option', { value: 'worktree' }, 'Worktree — its own branch'), h('option', { value: 'shared' }, 'Shared — this folder'));
  private readonly model = h('select', { id: 'fork-model', 'aria-describedby': 'model-note' });
  private readonly modelNote = h('div', { class: 'note', id: 'model-note', role: 'status' });
  /** Attempts 2–8: a tournament; the optional model list gives attempt i model i (cycled). */
  private readonly attempts = h('input', { id: 'fork-attempts', type: 'number', min: '1', max: String(MAX_ATTEMPTS), value: '1', 'aria-describedby': 'attempts-note' });
  private readonly attemptModels = h('input', { id: 'fork-attempt-models', type: 'text', placeholder: 'optional: model ids, comma-separated', 'aria-describedby': 'attempts-note' });
  private readonly attemptsNote = h('div', { class: 'note', id: 'attempts-note', role: 'status' });
  private models: ModelOption[] = [];
  /** The model picked for this chat; a new chat (or a reload) starts again from its own model. */
  private chosenModel?: { sessionId: string; id: string };
  private readonly start = h('button', { type: 'submit', class: 'button primary' }, icon('repo-forked'), h('span', { class: 'label' }, 'Start fork'));
  private readonly formError = h('div', { class: 'field-error', id: 'form-error', role: 'alert' });
  private session?: SessionView;
  private isolationChosen: boolean;

  constructor(private readonly channel: HostChannel, private readonly state: FormState, private readonly save: () => void, private readonly onStarted: (forkId: string) => void) {
    this.directive.value = state.directive;
    this.n.value = state.turnsN;
    (state.turnsMode === 'n' ? this.last : this.all).checked = true;
    this.isolationChosen = state.isolation !== undefined;
    if (state.isolation) this.isolation.value = state.isolation;
    const picker = h('fieldset', { class: 'turns' },
      h('legend', {}, 'Inherit'),
      h('label', { class: 'choice', for: 'turns-all' }, this.all, ' All turns'),
      h('span', { class: 'choice' }, this.last, h('label', { for: 'turns-last' }, ' Last'), ' ', this.n, ' ', h('label', { for: 'turns-n' }, 'turns')),
    );
    this.el = h('form', { class: 'new-fork', 'aria-label': 'New fork', novalidate: true },
      h('label', { for: 'directive', class: 'field-label' }, 'Directive'), this.directive,
      picker, this.hint, this.note, this.turnsError,
      h('label', { for: 'isolation', class: 'field-label' }, 'Isolation'), this.isolation,
      h('label', { for: 'fork-model', class: 'field-label' }, 'Model'), this.model, this.modelNote,
      h('label', { for: 'fork-attempts', class: 'field-label' }, 'Attempts'), this.attempts,
      h('label', { for: 'fork-attempt-models', class: 'field-label' }, 'Attempt models'), this.attemptModels, this.attemptsNote,
      h('div', { class: 'form-row' }, this.start), this.formError);
    this.attempts.addEventListener('input', () => this.showAttempts());
    this.attemptModels.addEventListener('input', () => this.showAttempts());
    this.showAttempts();
    this.directive.addEventListener('input', () => this.changed());
    this.directive.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) this.el.requestSubmit();
    });
    for (const radio of [this.all, this.last]) radio.addEventListener('change', () => this.changed());
    // Typing a number means "Last N".
    this.n.addEventListener('focus', () => this.select('n'));
    this.n.addEventListener('input', () => this.select('n'));
    this.model.addEventListener('change', () => {
      if (this.session) this.chosenModel = { sessionId: this.session.sessionId, id: this.model.value };
      this.showModelNote();
    });
    this.isolation.addEventListener('change', () => {
      this.isolationChosen = true;
      this.changed();
    });
    this.el.addEventListener('submit', event => {
      event.preventDefault();
      void this.submit();
    });
    this.changed();
  }

  setSession(session: SessionView | undefined): void {
    this.session = session;
    this.fillModels();
    this.changed();
  }

  setModels(models: ModelOption[]): void {
    this.models = models;
    this.fillModels();
  }

  /** The chat's model first and selected, unless another was picked for this chat. */
  private fillModels(): void {
    const parent = this.session?.model;
    const options = parent ? forkModelOptions(parent, this.models) : [];
    this.model.replaceChildren(...options.map((m, i) =>
      h('option', { value: m.id }, `${m.name === m.id ? m.id : `${m.name} (${m.id})`}${i === 0 ? ' — this chat\'s model' : ''}`)));
    const chosen = this.chosenModel?.sessionId === this.session?.sessionId ? this.chosenModel?.id : undefined;
    this.model.value = chosen && options.some(m => m.id === chosen) ? chosen : parent ?? '';
    this.model.disabled = !parent;
    this.showModelNote();
  }

  private showModelNote(): void {
    const parent = this.session?.model;
    const cold = parent !== undefined && this.model.value !== '' && this.model.value !== parent;
    this.modelNote.classList.toggle('warning', cold);
    this.modelNote.replaceChildren(icon(cold ? 'warning' : 'info'), ' ', !parent ? 'The chat\'s model, once there is a chat.' : cold ? coldCacheText(this.model.value, parent) : sameModelText(parent));
  }

  setDefaults(defaults: { forkTurns: string; isolation: Isolation }, fresh: boolean): void {
    if (!this.isolationChosen) this.isolation.value = defaults.isolation;
    if (fresh && defaults.forkTurns !== 'all') {
      this.n.value = defaults.forkTurns;
      this.last.checked = true;
    }
    this.changed();
  }

  /** The picker's value when valid ("all" or N), else undefined (its error is on screen). */
  turns(): string | undefined {
    const parsed = this.parsed();
    return parsed.ok ? String(parsed.value) : undefined;
  }

  focusTurns(): void {
    this.n.focus();
  }

  private parsed(): ForkTurnsResult {
    return this.all.checked ? parseForkTurns('all') : parseForkTurns(this.n.value, 'user');
  }

  private select(mode: 'all' | 'n'): void {
    (mode === 'n' ? this.last : this.all).checked = true;
    this.changed();
  }

  private changed(): void {
    const parsed = this.parsed();
    const realTurns = this.session?.realTurns;
    const compacted = this.session?.messages.some(m => m.kind === 'summary') === true;
    const turnsText = `${realTurns} real turn${realTurns === 1 ? '' : 's'}`;
    setText(this.hint, realTurns === undefined ? 'Ask @fork something in the Chat view: the form forks that conversation.'
      : compacted ? `${turnsText} since this conversation was compacted.` : `This conversation has ${turnsText}.`);
    setText(this.turnsError, parsed.ok ? '' : parsed.error);
    this.n.setAttribute('aria-invalid', String(!parsed.ok));
    this.note.hidden = !(parsed.ok && this.session && windowSkipsSummary(this.session.messages, parsed.value));
    this.start.disabled = !this.session;
    Object.assign(this.state, { directive: this.directive.value, turnsMode: this.all.checked ? 'all' : 'n', turnsN: this.n.value, isolation: this.isolationChosen ? this.isolation.value : undefined });
    this.save();
    this.channel.notify(pickerChanged, { forkTurns: parsed.ok ? String(parsed.value) : null, isolation: this.isolation.value as Isolation });
  }

  /** 1–8, or undefined while the field is invalid. */
  private attemptCount(): number | undefined {
    const n = Number(this.attempts.value);
    return Number.isInteger(n) && n >= 1 && n <= MAX_ATTEMPTS ? n : undefined;
  }

  private attemptModelList(): string[] {
    return this.attemptModels.value.split(',').map(m => m.trim()).filter(Boolean);
  }

  private showAttempts(): void {
    const n = this.attemptCount();
    const models = this.attemptModelList();
    this.attemptModels.disabled = n === undefined || n < 2;
    const text = n === undefined ? `Attempts: a whole number from 1 to ${MAX_ATTEMPTS}.`
      : n < 2 ? 'One fork. 2 or more: a tournament — each attempt in its own worktree, verified, compared side by side.'
      : `${n} attempts, each in its own worktree; they share this chat's prompt cache${models.length ? ' (attempts on another model start cold)' : ''}, run the verify command when they end, and are compared in the Forks panel.`;
    this.attemptsNote.classList.toggle('warning', n === undefined);
    this.attemptsNote.replaceChildren(icon(n === undefined ? 'warning' : 'info'), ' ', text);
  }

  private async submit(): Promise<void> {
    const parsed = this.parsed();
    const directive = this.directive.value.trim();
    setText(this.formError, '');
    if (!parsed.ok) return this.n.focus();
    if (!directive) {
      setText(this.formError, 'Say what the fork should do.');
      return this.directive.focus();
    }
    const attempts = this.attemptCount();
    if (attempts === undefined) return this.attempts.focus();
    this.start.disabled = true;
    try {
      const model = this.session?.model && this.model.value && this.model.value !== this.session.model ? this.model.value : undefined;
      const models = attempts > 1 ? this.attemptModelList() : [];
      const { forkId } = await this.channel.request(panelForkStart, {
        directive, forkTurns: String(parsed.value), isolation: attempts > 1 ? 'worktree' : this.isolation.value as Isolation, ...(model ? { model } : {}),
        ...(attempts > 1 ? { attempts, ...(models.length ? { models } : model ? { models: [model] } : {}) } : {}),
      });
      this.directive.value = '';
      this.changed();
      this.onStarted(forkId);
    } catch (error) {
      setText(this.formError, error instanceof Error ? error.message : String(error));
    } finally {
      this.start.disabled = !this.session;
    }
  }
}
