// Revival after the runtime died mid-fork: calls the crash cut off get an "interrupted" result, then
// the fork resumes from its own transcript (launch-time prompt, tools and directive; never the parent).
import type { Entry, ToolResultBlock, ToolUseBlock } from '../../common/transcript';
import type { Session } from '../session/session';

export const INTERRUPTED_RESULT = 'Interrupted: the runtime stopped before this call finished. Check its effects before retrying it.';

/** Forks on revival, parents when next sent to: returns the entry committed, if any. */
export function closeInterruptedCalls(session: Session): Entry[] {
  const last = session.lastEntry();
  if (!last || last.message.role !== 'assistant') return [];
  const calls = last.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  if (calls.length === 0) return [];
  const results: ToolResultBlock[] = calls.map(call => ({ type: 'tool_result', tool_use_id: call.id, content: INTERRUPTED_RESULT, is_error: true }));
  return [session.commit('tool_results', { role: 'user', content: results })];
}
