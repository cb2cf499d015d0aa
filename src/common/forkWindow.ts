// How much of a conversation a fork window covers (docs/design.md §4.1, §4.2): shared by the runtime's selection,
// the panel's turn picker and the palette, so the hint the user reads is the rule the runtime applies.
import type { ForkTurns } from './forkTurns';
import type { Entry } from './transcript';
import { isRealUserTurn } from './transcript';

export function countRealTurns(entries: readonly Pick<Entry, 'kind' | 'message'>[]): number {
  return entries.filter(entry => entry.kind !== 'startup' && entry.kind !== 'summary' && isRealUserTurn(entry.message)).length;
}

/** True when a numeric window would start after a compaction summary, so the summary is left out. */
export function windowSkipsSummary(entries: readonly Pick<Entry, 'kind'>[], turns: ForkTurns): boolean {
  return turns !== 'all' && entries.some(entry => entry.kind === 'summary');
}
