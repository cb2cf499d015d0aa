// The request view of a session (docs/design.md §3): what the model is sent after compaction. Pure:
// the runtime builds requests from it, the editor counts the turns a numeric fork window can reach.
import type { Entry } from './transcript';

/**
 * Startup entries, the latest summary, then the entries after the point it replaces up to (a summary
 * made mid-turn keeps that turn's entries after it); the whole history when there is no summary.
 */
export function requestViewOf<T extends Pick<Entry, 'id' | 'kind' | 'replacesUpTo'>>(history: readonly T[]): readonly T[] {
  let summaryAt = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].kind === 'summary') {
      summaryAt = i;
      break;
    }
  }
  if (summaryAt < 0) return history;
  const summary = history[summaryAt];
  // Not found: the history is already a request view (a fork inherits the parent's), whose summary
  // replaced everything before it but the startup entries. Viewing it again must not reorder it.
  const found = summary.replacesUpTo === undefined ? -1 : history.findIndex(e => e.id === summary.replacesUpTo);
  const replaced = found < 0 ? summaryAt - 1 : found;
  const startup = history.slice(0, replaced + 1).filter(entry => entry.kind === 'startup');
  const kept = history.slice(replaced + 1).filter(entry => entry.kind !== 'summary');
  return [...startup, summary, ...kept];
}

/**
 * Whether a request view (requestViewOf's result) holds a summary: there it comes right after the startup
 * entries, so only the head is read — a numeric fork of a long chat does not scan the chat.
 */
export function viewHasSummary(view: readonly Pick<Entry, 'kind'>[]): boolean {
  for (const entry of view) {
    if (entry.kind === 'summary') return true;
    if (entry.kind !== 'startup') return false;
  }
  return false;
}
