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
 * Breakpoints: the end of the system prompt (covers tools + system), the end of the final entry, and the
 * end of the user entry just before the last assistant entry — where the previous request (or, for a
 * fork, the parent's latest request) ended. That second one keeps the cache read within the provider's
 * 20-block lookback after turns with many parallel tool calls. Breakpoints belong to entries, not to
 * messages: when a fork's directive joins the last inherited user entry in one message, the breakpoint
 * stays on that entry's last block, exactly where the parent's request had it.
 */
export function buildRequestBody(
  header: SessionHeader,
  entries: readonly Entry[],
  /** Also keep the breakpoints of the request that ended at this entry index (a fork's parent request). */
  keepBreakpointsOf?: number,
): MessagesRequestBody {
  const cache: CacheControl = header.settings.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let marked = breakpointsOf(entries);
  if (keepBreakpointsOf !== undefined) {
    // A fork's first request: the parent's latest request's breakpoints (its entries are a prefix of
    // ours), so the bytes match the parent's, plus the end of the inherited history instead of the
    // directive, so sibling forks read all of it.
    marked = breakpointsOf(entries.slice(0, keepBreakpointsOf + 1));
    const lastInherited = entries.length - 2;
    if (lastInherited >= 0 && canCarryBreakpoint(entries[lastInherited].message)) marked.add(lastInherited);
    else marked.add(entries.length - 1);
  }
  // Three message breakpoints plus the system one is the API's limit of four; the oldest go first.
  while (marked.size > MAX_MESSAGE_BREAKPOINTS) marked.delete(Math.min(...marked));
  const body: MessagesRequestBody = {
    model: header.settings.model,
    max_tokens: header.settings.maxTokens,
    system: [{ type: 'text', text: header.systemPrompt, cache_control: cache }],
    tools: header.tools.map(tool => ({ ...tool })),
    messages: entriesToMessages(marked.size === 0 ? entries : entries.map((entry, index) => (marked.has(index) ? withBreakpoint(entry, cache) : entry))),
  };
  if (header.settings.thinkingBudget) body.thinking = { type: 'enabled', budget_tokens: header.settings.thinkingBudget };
  return body;
}

const MAX_MESSAGE_BREAKPOINTS = 3;

/** Entry indexes whose last block gets a breakpoint: the final entry, and the user entry before the last assistant run. */
function breakpointsOf(entries: readonly Entry[]): Set<number> {
  const marked = new Set<number>();
  if (entries.length > 0) marked.add(entries.length - 1);
  let runStart = findLastIndex(entries, e => e.message.role === 'assistant');
  while (runStart > 0 && entries[runStart - 1].message.role === 'assistant') runStart--;
  if (runStart > 0) marked.add(runStart - 1);
  return marked;
}

function canCarryBreakpoint(message: Message): boolean {
  const last = message.content[message.content.length - 1];
  return last !== undefined && last.type !== 'thinking' && last.type !== 'redacted_thinking';
}

function withBreakpoint(entry: Entry, cache: CacheControl): Entry {
  const content = entry.message.content.slice();
  const last = content.length - 1;
  if (last < 0) return entry;
  content[last] = { ...content[last], cache_control: cache } as ContentBlock;
  return { ...entry, message: { role: entry.message.role, content } };
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}
