// A fork's live output in its row: text streamed in place (appended, never re-rendered), tool calls with
// their outcome, notes. Also the one-line "latest output" shown while the row is collapsed.
import type { OutputItem } from '../src/common/protocol/webview';
import { h, icon, setText } from './dom';

const TOOL_ICONS = { running: 'loading codicon-modifier-spin', ok: 'check', error: 'error' } as const;
const NOTE_ICONS = { info: 'info', warning: 'warning', error: 'error' } as const;

export class OutputView {
  readonly el = h('div', { class: 'output-log', role: 'log', 'aria-live': 'off', tabindex: '0', 'aria-label': 'Fork output' });
  private readonly nodes = new Map<number, HTMLElement>();
  private readonly texts = new Map<number, number>();

  /** Rebuilds everything (a snapshot, or the row was just expanded). */
  reset(items: readonly OutputItem[]): void {
    this.el.replaceChildren();
    this.nodes.clear();
    this.texts.clear();
    if (items.length === 0) this.el.append(h('div', { class: 'output-empty' }, 'No output yet.'));
    for (const item of items) this.upsert(item);
  }

  /** Brings the changed items up to date; appended text only adds its new characters. */
  update(items: readonly OutputItem[], changed: ReadonlySet<number>): void {
    const stick = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 24;
    this.el.querySelector('.output-empty')?.remove();
    const alive = new Set(items.map(item => item.seq));
    for (const [seq, node] of this.nodes) {
      if (alive.has(seq)) continue;
      node.remove();
      this.nodes.delete(seq);
      this.texts.delete(seq);
    }
    for (const item of items) if (changed.has(item.seq)) this.upsert(item);
    if (stick) this.el.scrollTop = this.el.scrollHeight;
  }

  private upsert(item: OutputItem): void {
    const node = this.nodes.get(item.seq);
    if (item.kind === 'text' && node) {
      const shown = this.texts.get(item.seq) ?? 0;
      if (item.text.length > shown) node.append(document.createTextNode(item.text.slice(shown)));
      this.texts.set(item.seq, item.text.length);
      return;
    }
    const fresh = render(item);
    if (item.kind === 'text') this.texts.set(item.seq, item.text.length);
    if (node) node.replaceWith(fresh);
    else this.insert(item.seq, fresh);
    this.nodes.set(item.seq, fresh);
  }

  private insert(seq: number, el: HTMLElement): void {
    const after = [...this.nodes.entries()].filter(([s]) => s > seq).sort((a, b) => a[0] - b[0])[0];
    if (after) this.el.insertBefore(el, after[1]);
    else this.el.append(el);
  }
}

function render(item: OutputItem): HTMLElement {
  switch (item.kind) {
    case 'text':
      return h('div', { class: item.console ? 'out-text out-console' : 'out-text' }, item.text);
    case 'tool':
      return h(
        'div',
        { class: `out-tool ${item.status}` },
        icon(TOOL_ICONS[item.status]),
        h('span', { class: 'out-tool-name' }, item.description || item.name),
        item.summary ? h('span', { class: 'out-tool-summary' }, item.summary) : undefined,
      );
    case 'note':
      return h('div', { class: `out-note ${item.tone}` }, icon(NOTE_ICONS[item.tone]), h('span', {}, item.text));
  }
}

/** The last thing the fork said or did, on one line. */
export function latestLine(items: readonly OutputItem[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    const text = item.kind === 'tool' ? item.description || item.name : item.text;
    const line = text.split('\n').map(l => l.trim()).filter(Boolean).pop();
    if (line) return line;
  }
  return '';
}

export function setLatest(el: HTMLElement, items: readonly OutputItem[]): void {
  const line = latestLine(items);
  setText(el, line);
  el.hidden = line === '';
}
