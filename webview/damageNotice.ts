// A notice that the runtime found a chat's or a fork's transcript damaged when it loaded it: which line, and
// what it did (the entry read back from a sealed segment, or the exchange closed). The sentences come from
// the runtime (session/damage.ts); shown as text, never as HTML.
import { h, icon } from './dom';

export class DamageNotice {
  readonly el = h('div', { class: 'damage-notice', role: 'status', hidden: true });
  private shown = '';

  constructor(private readonly what: 'chat' | 'fork') {}

  set(lines: readonly string[] | undefined): void {
    const key = (lines ?? []).join('\n');
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = key === '';
    if (key === '') return this.el.replaceChildren();
    const items = (lines ?? []).map(line => h('li', {}, capitalised(line) + '.'));
    this.el.replaceChildren(
      h('p', {}, icon('warning'), ` This ${this.what}'s transcript was damaged on disk.`),
      h('ul', {}, ...items),
      h('p', { class: 'damage-hint' }, 'Run fork-agents doctor --repair to make the mending permanent.'),
    );
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
