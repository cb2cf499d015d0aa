// Builds the Messages API request body for a session. Parent and forks share this one function, so a
// fork's first request repeats the parent's bytes (DESIGN §4.6): tools → system → messages, with the
// same cache_control placement rule everywhere.
import type { CacheControl, ContentBlock, Entry, Message, SessionHeader, ToolDefinition } from '../../common/transcript';

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  system: { type: 'text'; text: string; cache_control?: CacheControl }[];
  tools: ToolDefinition[];
  messages: Message[];
  thinking?: { type: 'enabled'; budget_tokens: number };
}

/** Consecutive same-role entries become one message, as the API would merge them anyway. */
export function entriesToMessages(entries: readonly Entry[]): Message[] {
  const messages: Message[] = [];
  for (const entry of entries) {
    const previous = messages[messages.length - 1];
    if (previous && previous.role === entry.message.role) {
      messages[messages.length - 1] = { role: previous.role, content: [...previous.content, ...entry.message.content] };
    } else {
      messages.push(entry.message);
    }
  }
  return messages;
}

/**
 * Breakpoints: the end of the system prompt (covers tools + system), the last block of the final
 * message, and the last block of the user message just before the last assistant message — where the
 * previous request (or, for a fork, the parent's latest request) ended. That second one keeps the cache
 * read within the provider's 20-block lookback after turns with many parallel tool calls.
 */
export function buildRequestBody(
  header: SessionHeader,
  entries: readonly Entry[],
  /** Also keep the breakpoints of the request that ended at this entry index (a fork's parent request). */
  keepBreakpointsOf?: number,
): MessagesRequestBody {
  const cache: CacheControl = header.settings.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const messages = entriesToMessages(entries);
  let marked = breakpointsOf(messages);
  if (keepBreakpointsOf !== undefined) {
    // A fork's first request: the parent's latest request's breakpoints (its messages are a prefix of
    // ours: it ends at a user entry followed by an assistant one), so the bytes match the parent's, plus
    // the end of the inherited history instead of the directive, so sibling forks read all of it.
    marked = breakpointsOf(entriesToMessages(entries.slice(0, keepBreakpointsOf + 1)));
    const lastInherited = messages.length - 2;
    if (lastInherited >= 0 && canCarryBreakpoint(messages[lastInherited])) marked.add(lastInherited);
    else marked.add(messages.length - 1);
  }
  // Three message breakpoints plus the system one is the API's limit of four; the oldest go first.
  while (marked.size > MAX_MESSAGE_BREAKPOINTS) marked.delete(Math.min(...marked));
  const body: MessagesRequestBody = {
    model: header.settings.model,
    max_tokens: header.settings.maxTokens,
    system: [{ type: 'text', text: header.systemPrompt, cache_control: cache }],
    tools: header.tools.map(tool => ({ ...tool })),
    messages: messages.map((message, index) => (marked.has(index) ? withBreakpoint(message, cache) : message)),
  };
  if (header.settings.thinkingBudget) body.thinking = { type: 'enabled', budget_tokens: header.settings.thinkingBudget };
  return body;
}

const MAX_MESSAGE_BREAKPOINTS = 3;

function breakpointsOf(messages: readonly Message[]): Set<number> {
  const marked = new Set<number>();
  if (messages.length > 0) marked.add(messages.length - 1);
  const lastAssistant = findLastIndex(messages, m => m.role === 'assistant');
  if (lastAssistant > 0 && messages[lastAssistant - 1].role === 'user') marked.add(lastAssistant - 1);
  return marked;
}

function canCarryBreakpoint(message: Message): boolean {
  const last = message.content[message.content.length - 1];
  return last !== undefined && last.type !== 'thinking' && last.type !== 'redacted_thinking';
}

function withBreakpoint(message: Message, cache: CacheControl): Message {
  const content = message.content.slice();
  const last = content.length - 1;
  if (last < 0) return message;
  content[last] = { ...content[last], cache_control: cache } as ContentBlock;
  return { role: message.role, content };
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}
