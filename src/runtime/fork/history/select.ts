// History selection (docs/design.md §4.2): which committed parent entries a fork inherits.
// Entries are deep-frozen and shared by reference: a fork copies nothing it does not change.
import type { ForkTurns } from '../../../common/forkTurns';
import type { Entry } from '../../../common/transcript';
import { isRealUserTurn } from '../../../common/transcript';
import { Picked } from '../../session/picked';
import type { Span } from '../../session/picked';

export class ForkPointError extends Error {}

/** The parent's committed entries up to and including `atEntryId` (all of them when absent). */
export function snapshotUpTo(entries: readonly Entry[], atEntryId?: string): readonly Entry[] {
  if (atEntryId === undefined) return entries;
  const index = entries.findIndex(entry => entry.id === atEntryId);
  if (index < 0) throw new ForkPointError(`Entry ${atEntryId} is not in the parent's history.`);
  return entries.slice(0, index + 1);
}

// Pure window rules live in src/common: the panel and the palette show the same counts.
export { countRealTurns, windowSkipsSummary } from '../../../common/forkWindow';

export function selectHistory(snapshot: readonly Entry[], turns: ForkTurns): Entry[] {
  return selectSpans(snapshot, snapshot.length, turns).toArray();
}

/** selectHistory over `snapshot[0, end)`, naming the selection by spans instead of copying it. */
export function selectSpans(snapshot: readonly Entry[], end: number, turns: ForkTurns): Picked {
  if (turns === 'all') return Picked.prefix(snapshot, end);
  let prefixEnd = 0;
  while (prefixEnd < end && (snapshot[prefixEnd].kind === 'startup' || snapshot[prefixEnd].kind === 'summary')) prefixEnd++;
  const spans: Span[] = [];
  for (let i = 0; i < prefixEnd; i++) {
    if (snapshot[i].kind !== 'startup') continue;
    const last = spans[spans.length - 1];
    if (last && last.to === i) last.to = i + 1;
    else spans.push({ from: i, to: i + 1 });
  }
  // Scan back from the end until N real turns are found: the cost follows the window, not the parent.
  // A summary ends the scan: a numeric window never reaches into compacted history.
  let from = -1;
  let found = 0;
  for (let i = end - 1; i >= prefixEnd && found < turns; i--) {
    const entry = snapshot[i];
    if (entry.kind === 'summary') break;
    if (entry.kind !== 'startup' && isRealUserTurn(entry.message)) {
      from = i;
      found++;
    }
  }
  // A window that starts at tool results (with text beside them) starts at the call they answer instead.
  while (from > prefixEnd && snapshot[from].message.content.some(block => block.type === 'tool_result')) from--;
  if (from >= 0) spans.push({ from, to: end });
  return new Picked(snapshot, spans);
}
