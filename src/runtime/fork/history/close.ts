// Closing the boundary (docs/design.md §4.3): the fork's history must be a valid conversation that ends with
// the directive. Unanswered calls get constant placeholder results; the directive rides in the same
// user message (the API wants the results right after the calls). On thinking, the documented rule
// (agent/cacheMinimums.ts): models that keep earlier thinking (Opus 4.5+, Sonnet 4.6+) keep it here too;
// models that strip it do so at any non-tool-result block, the directive included, so there a fork reads
// the cache only up to its current turn's first thinking block, whatever message the directive rides in.
import type { ContentBlock, Entry, Message, ToolResultBlock, ToolUseBlock } from '../../../common/transcript';
import { isRealUserTurn } from '../../../common/transcript';
import { Picked } from '../../session/picked';
import type { EntryList } from '../../session/picked';
import { FORK_STARTED_RESULT, NOT_EXECUTED_RESULT } from './directive';

export const AGENT_TOOL_NAME = 'Agent';

export interface ClosedHistory {
  /** The inherited entries, shared with the parent. */
  inherited: Entry[];
  /** The one user message the fork adds: placeholder results (if any) and the directive. */
  closing: Message;
}

/**
 * Drops the trailing prompts nobody answered (with the reminders and notifications committed for their
 * requests): a prompt whose request failed, one still in flight, several in a row. "Answered" is decided
 * against the parent's whole history, so Fork from here on a prompt that was answered later keeps it.
 */
export function dropUnanswered(snapshot: readonly Entry[], history: readonly Entry[]): readonly Entry[] {
  const end = answeredEnd(snapshot, history);
  return end === snapshot.length ? snapshot : snapshot.slice(0, end);
}

/** How many leading entries of `list` dropUnanswered keeps (it reads only the tail it drops). */
export function answeredEnd(list: EntryList, history: readonly Entry[]): number {
  let end = list.length;
  for (;;) {
    let at = end;
    while (at > 0 && (list.at(at - 1)!.kind === 'notification' || list.at(at - 1)!.kind === 'reminder')) at--;
    const last = list.at(at - 1);
    if (at === 0 || !last || last.kind !== 'prompt' || !isRealUserTurn(last.message) || answered(last, history)) break;
    end = at - 1;
  }
  return end;
}

/** A response follows the prompt before the next real prompt. */
function answered(prompt: Entry, history: readonly Entry[]): boolean {
  // Searched from the end: the prompts asked about are the parent's latest (or a Fork from here point).
  let at = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].id === prompt.id) {
      at = i;
      break;
    }
  }
  for (let i = at + 1; at >= 0 && i < history.length; i++) {
    if (history[i].kind === 'response') return true;
    if (history[i].kind === 'prompt' && isRealUserTurn(history[i].message)) return false;
  }
  return false;
}

/** `history`: the parent's whole history, which decides what was answered (default: the selection itself). */
export function closeBoundary(selected: readonly Entry[], directiveText: string, history: readonly Entry[] = selected): ClosedHistory {
  const closed = closeSelection(Picked.prefix(selected), directiveText, history);
  return { inherited: closed.inherited.toArray(), closing: closed.closing };
}

/** closeBoundary over a selection named by spans: the inherited entries stay spans of the same source. */
export function closeSelection(selected: Picked, directiveText: string, history: readonly Entry[]): { inherited: Picked; closing: Message } {
  const inherited = selected.take(answeredEnd(selected, history));
  const content: ContentBlock[] = [];
  const tail = inherited.at(-1);
  if (tail && tail.message.role === 'assistant') {
    for (const call of tail.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use')) {
      content.push(placeholderResult(call));
    }
  }
  content.push({ type: 'text', text: directiveText });
  return { inherited, closing: { role: 'user', content } };
}

function placeholderResult(call: ToolUseBlock): ToolResultBlock {
  const isFork = call.name === AGENT_TOOL_NAME && (call.input as { subagent_type?: unknown } | null)?.subagent_type === 'fork';
  return { type: 'tool_result', tool_use_id: call.id, content: isFork ? FORK_STARTED_RESULT : NOT_EXECUTED_RESULT };
}
