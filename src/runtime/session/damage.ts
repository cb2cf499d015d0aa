// A transcript line that no longer parses (a damaged disk, an editor, a bad copy) loses the record on it.
// Loading skips it; this decides what the history becomes: mended from the sealed segment that holds the
// same entries where there is one, else closed so that no request carries half a tool exchange (a
// tool_use without its tool_result is a 400 for every later request), the way a crash mid-tool is closed.
import type { ContentBlock, Entry, SessionHeader, ToolResultBlock, ToolUseBlock } from '../../common/transcript';
import { deepFreeze, zeroUsage } from '../../common/transcript';
import type { ForkBootstrap, SessionRecord } from './records';

export type RepairRecord = Extract<SessionRecord, { type: 'repair' }>;

/** One damaged line of a session file and what loading did about it. */
export interface LineDamage {
  line: number;
  /** How many entries the history held when loading met the line: the lost record came after them. */
  at: number;
  /** The sealed segment the lost entry was read back from. */
  recoveredFrom?: string;
  /** Set when nothing held the lost record: what was closed instead. */
  closed?: string;
  /** When a `repair` record (fork-agents doctor --repair) wrote the mended history after it. */
  repaired?: string;
}

/** Damage the history still depends on mending in memory at every load (no repair record covers it). */
export function unrepaired(damage: readonly LineDamage[]): LineDamage[] {
  return damage.filter(d => !d.repaired);
}

/**
 * The `repair` record that makes what loading mended in memory permanent, or undefined when nothing is open:
 * `view` the history now, `replayed` the history the file's records gave. It rewrites from the first lost
 * record, or from the first entry the closing changed, whichever comes first.
 */
export function repairRecord(damage: readonly LineDamage[], view: readonly Entry[], replayed: readonly Entry[]): RepairRecord | undefined {
  const open = unrepaired(damage);
  if (open.length === 0) return undefined;
  let keep = Math.min(view.length, ...open.map(d => d.at));
  for (let i = 0; i < keep; i++) {
    if (replayed[i] !== view[i]) {
      keep = i;
      break;
    }
  }
  return { type: 'repair', lines: open.map(d => d.line), keep, keepLastId: keep === 0 ? null : view[keep - 1].id, entries: view.slice(keep), time: new Date().toISOString() };
}

export const LOST_RESULT = (line: number) =>
  `Lost: the transcript line that held this call's result (line ${line}) was damaged. Check the call's effects before relying on it.`;

/**
 * `tail`: the view's entries since the last seal, some missing; `sealed`: the segment's entries for the same
 * span. The segment wins when every entry still in the tail appears in it, in order (the tail lost lines only).
 */
export function mendFromSegment(tail: readonly Entry[], sealed: readonly Entry[]): readonly Entry[] | undefined {
  if (sealed.length <= tail.length) return undefined;
  let at = 0;
  for (const entry of tail) {
    while (at < sealed.length && sealed[at].id !== entry.id) at++;
    if (at === sealed.length) return undefined;
    at++;
  }
  return sealed;
}

/**
 * Makes every tool exchange whole: an assistant entry's tool_use blocks without results in the next entry get
 * an error result (added to that entry, or as a new entry); tool_result blocks whose call was lost become
 * text. Returns the new view and what changed, or undefined when nothing was open.
 */
export function closeOpenExchanges(view: readonly Entry[], line: number): { view: Entry[]; closed: string } | undefined {
  const out: Entry[] = [];
  let addedResults = 0;
  let orphanResults = 0;
  for (let i = 0; i < view.length; i++) {
    const entry = view[i];
    const previous = out[out.length - 1];
    const calls = previous?.message.role === 'assistant' ? previous.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use') : [];
    const callIds = new Set(calls.map(c => c.id));
    let current = entry;
    if (entry.message.role === 'user') {
      const orphansBefore = orphanResults;
      const content = entry.message.content.map((block): ContentBlock => {
        if (block.type !== 'tool_result' || callIds.has(block.tool_use_id)) return block;
        orphanResults++;
        const text = typeof block.content === 'string' ? block.content : block.content.map(b => (b.type === 'text' ? b.text : '[image]')).join('\n');
        return { type: 'text', text: `[A tool result whose call was lost with damaged transcript line ${line}:]\n${text}` };
      });
      const answered = new Set(content.flatMap(b => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
      const missing = calls.filter(c => !answered.has(c.id)).map(lostResult(line));
      addedResults += missing.length;
      // Results first: the API wants a call's results at the start of the next user message.
      if (missing.length > 0 || orphanResults > orphansBefore) current = deepFreeze({ ...entry, message: { role: 'user', content: [...missing, ...content] } });
    } else if (calls.length > 0) {
      addedResults += calls.length;
      out.push(closingEntry(previous, calls.map(lostResult(line))));
    }
    out.push(current);
  }
  // An exchange open at the very end is what a crash mid-tool leaves: closeInterruptedCalls closes it on use.
  if (addedResults === 0 && orphanResults === 0) return undefined;
  const parts = [];
  if (addedResults > 0) parts.push(`${addedResults} call(s) without a result got an error result`);
  if (orphanResults > 0) parts.push(`${orphanResults} result(s) without their call became text`);
  return { view: out, closed: parts.join('; ') };
}

const lostResult = (line: number) => (call: ToolUseBlock): ToolResultBlock => ({ type: 'tool_result', tool_use_id: call.id, content: LOST_RESULT(line), is_error: true });

function closingEntry(after: Entry, results: ToolResultBlock[]): Entry {
  return deepFreeze({ id: `${after.id}-mended`, kind: 'tool_results', time: after.time, message: { role: 'user', content: results } });
}

/** One sentence for the log, the transcript and the CLI. */
export function describeDamage(damage: LineDamage): string {
  const what = `line ${damage.line} of the transcript was damaged`;
  if (damage.repaired) return `${what}; the mended history was written after it (repaired ${damage.repaired})`;
  if (damage.recoveredFrom) return `${what}; its entry was recovered from sealed segment ${damage.recoveredFrom.slice(0, 12)}`;
  if (damage.closed) return `${what} and its record is lost; ${damage.closed} so requests stay valid`;
  return `${what} and its record is lost (it left no tool call open)`;
}

/** Why a fork's file holds no launch record (line 2, written with the header in one append). */
export function launchRecordProblem(tornBytes: number, damage: readonly LineDamage[]): string {
  if (damage.some(d => d.line === 2)) return 'its launch record (line 2 of its transcript) is damaged';
  if (tornBytes > 0) return 'its launch record (line 2 of its transcript) is torn: the runtime stopped while starting it';
  return 'its transcript has no launch record';
}

/** What the header tells of a fork whose launch record is lost, so it can be listed (as failed, with why). */
export function standInBootstrap(header: SessionHeader): ForkBootstrap {
  const closing: Entry = { id: `${header.id}-lost-launch`, kind: 'prompt', time: header.createdAt, message: { role: 'user', content: [{ type: 'text', text: '(launch record lost)' }] } };
  return {
    fork: {
      id: header.id, kind: 'fork', name: header.title, parentSessionId: header.parent?.sessionId ?? '', parentEntryId: header.parent?.entryId,
      origin: 'user', forkTurns: 'unknown', isolation: 'shared', root: header.root, directive: '', state: 'failed',
      createdAt: header.createdAt, modelTurns: 0, usage: zeroUsage(), model: header.settings.model,
    },
    closing,
    parentRequestEnd: -1,
  };
}
