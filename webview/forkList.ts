// The Forks list: one ForkRow per fork, live forks first then the newest; output ops are applied to the
// data at once; summaries and output reach the DOM at most once per animation frame (on top of the
// host's 20 flushes a second per fork).
import { isTerminal } from '../src/common/forks';
import { applyOutputOps } from '../src/common/outputOps';
import type { ForkRowView, OutputItem, OutputOp, PanelSnapshot, PendingApprovalView } from '../src/common/protocol/webview';
import { h } from './dom';
import { ForkRow } from './forkRow';
import type { RowContext } from './forkRow';

export class ForkList {
  readonly el = h('ul', { class: 'forks', 'aria-label': 'Forks' });
  readonly empty = h('p', { class: 'empty' }, 'No forks yet. Start one above, with /fork in the chat, or with Fork: New Directive.');
  private readonly rows = new Map<string, ForkRow>();
  private readonly outputs = new Map<string, OutputItem[]>();
  private readonly dirty = new Map<string, Set<number>>();
  private readonly rowsDue = new Map<string, ForkRowView>();
  /** A fork to open once it is listed (the answer to panel/forkStart can overtake its first summary). */
  private revealWhenListed?: string;
  private approvals: PendingApprovalView[] = [];
  private frame?: number;
  /** Called after the set of forks or their states change (the section header counts them). */
  onChange: () => void = () => undefined;

  constructor(private readonly ctx: RowContext) {}

  load(snapshot: PanelSnapshot): void {
    this.rows.clear();
    this.outputs.clear();
    this.dirty.clear();
    this.el.replaceChildren();
    for (const [forkId, items] of Object.entries(snapshot.outputs)) this.outputs.set(forkId, items);
    this.rowsDue.clear();
    for (const view of snapshot.forks) this.apply(view, false);
    this.setApprovals(snapshot.approvals);
    this.arrange();
  }

  upsert(view: ForkRowView): void {
    this.rowsDue.set(view.fork.id, view);
    this.frame ??= requestAnimationFrame(() => this.render());
  }

  private apply(view: ForkRowView, arrange = true): void {
    const row = this.rows.get(view.fork.id);
    if (row) row.update(view);
    else this.rows.set(view.fork.id, new ForkRow(view, this.outputOf(view.fork.id), this.ctx));
    if (arrange) this.arrange();
  }

  applyOutput(forkId: string, ops: readonly OutputOp[]): void {
    const changed = applyOutputOps(this.outputOf(forkId), ops);
    const pending = this.dirty.get(forkId) ?? new Set<number>();
    for (const seq of changed) pending.add(seq);
    this.dirty.set(forkId, pending);
    this.frame ??= requestAnimationFrame(() => this.render());
  }

  setApprovals(approvals: PendingApprovalView[]): void {
    this.approvals = approvals;
    for (const row of this.rows.values()) row.setApprovals(approvals.filter(a => a.forkId === row.id));
  }

  reveal(forkId: string): void {
    // The row may still wait for its first frame.
    if (this.frame !== undefined) {
      cancelAnimationFrame(this.frame);
      this.render();
    }
    const row = this.rows.get(forkId);
    this.revealWhenListed = row ? undefined : forkId;
    if (!row) return;
    row.setExpanded(true);
    row.el.scrollIntoView({ block: 'nearest' });
    // Take the focus only when the page has it (a fork started from the palette must not steal it).
    if (document.hasFocus()) row.el.querySelector<HTMLButtonElement>('.fork-toggle')?.focus();
  }

  tick(now: number): void {
    for (const row of this.rows.values()) if (!isTerminal(row.summary.state)) row.tick(now);
  }

  forks(): ForkRowView['fork'][] {
    return [...this.rows.values()].map(row => row.summary);
  }

  private outputOf(forkId: string): OutputItem[] {
    let items = this.outputs.get(forkId);
    if (!items) {
      items = [];
      this.outputs.set(forkId, items);
    }
    return items;
  }

  private render(): void {
    this.frame = undefined;
    if (this.rowsDue.size > 0) {
      for (const view of this.rowsDue.values()) this.apply(view, false);
      this.rowsDue.clear();
      this.arrange();
      if (this.revealWhenListed && this.rows.has(this.revealWhenListed)) this.reveal(this.revealWhenListed);
    }
    for (const [forkId, changed] of this.dirty) this.rows.get(forkId)?.setOutput(this.outputOf(forkId), changed);
    this.dirty.clear();
  }

  private arrange(): void {
    const order = [...this.rows.values()].sort(compareRows);
    order.forEach((row, index) => {
      if (this.el.children[index] !== row.el) this.el.insertBefore(row.el, this.el.children[index] ?? null);
      row.setApprovals(this.approvals.filter(a => a.forkId === row.id));
    });
    this.empty.hidden = order.length > 0;
    this.onChange();
  }
}

function compareRows(a: ForkRow, b: ForkRow): number {
  const liveA = isTerminal(a.summary.state) ? 1 : 0;
  const liveB = isTerminal(b.summary.state) ? 1 : 0;
  if (liveA !== liveB) return liveA - liveB;
  return b.summary.createdAt.localeCompare(a.summary.createdAt);
}
