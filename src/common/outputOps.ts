// How a receiver applies a fork's output ops (src/common/protocol/webview.ts) to its list of items: the
// webview does it on every `fork/output`; tests check it rebuilds exactly what the host's log holds. Pure.
import type { OutputItem, OutputOp } from './protocol/webview';

/** Applies ops in place and returns the seqs of items that changed (added, appended to or replaced). */
export function applyOutputOps(items: OutputItem[], ops: readonly OutputOp[]): Set<number> {
  const changed = new Set<number>();
  for (const op of ops) {
    if (op.op === 'trim') {
      const keepFrom = items.findIndex(item => item.seq >= op.beforeSeq);
      items.splice(0, keepFrom < 0 ? items.length : keepFrom);
      continue;
    }
    const seq = op.op === 'append' ? op.seq : op.item.seq;
    const index = findBySeq(items, seq);
    if (op.op === 'append') {
      const existing = index >= 0 ? items[index] : undefined;
      if (existing?.kind === 'text') existing.text += op.text;
      else insertBySeq(items, { seq, kind: 'text', text: op.text });
    } else if (index >= 0) {
      items[index] = { ...op.item };
    } else {
      insertBySeq(items, { ...op.item });
    }
    changed.add(seq);
  }
  return changed;
}

function findBySeq(items: readonly OutputItem[], seq: number): number {
  // New output lands at the end: search from there.
  for (let i = items.length - 1; i >= 0; i--) if (items[i].seq === seq) return i;
  return -1;
}

function insertBySeq(items: OutputItem[], item: OutputItem): void {
  let at = items.length;
  while (at > 0 && items[at - 1].seq > item.seq) at--;
  items.splice(at, 0, item);
}
