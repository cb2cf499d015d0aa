// Closing the boundary (DESIGN §4.4): the fork's history must be a valid conversation that ends with
// the directive. Unanswered calls get constant placeholder results; the directive rides in the same
// user message (which also keeps earlier thinking blocks in the cached prefix).
import type { ContentBlock, Entry, Message, ToolResultBlock, ToolUseBlock } from '../../common/transcript';
import { isRealUserTurn } from '../../common/transcript';
import { FORK_STARTED_RESULT, NOT_EXECUTED_RESULT } from './directive';

export const AGENT_TOOL_NAME = 'Agent';

export interface ClosedHistory {
  /** The inherited entries, shared with the parent. */
  inherited: Entry[];
  /** The one user message the fork adds: placeholder results (if any) and the directive. */
  closing: Message;
}

export function closeBoundary(selected: readonly Entry[], directiveText: string): ClosedHistory {
  const inherited = selected.slice();
  // An unanswered trailing prompt is dropped, with the reminders committed for its request after it.
  let end = inherited.length;
  while (end > 0 && (inherited[end - 1].kind === 'notification' || inherited[end - 1].kind === 'reminder')) end--;
  const last = inherited[end - 1];
  if (last && last.message.role === 'user' && last.kind === 'prompt' && isRealUserTurn(last.message)) inherited.length = end - 1;
  const content: ContentBlock[] = [];
  const tail = inherited[inherited.length - 1];
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
