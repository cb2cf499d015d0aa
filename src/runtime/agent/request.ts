// Builds the Messages API request body for a session. Parent and forks share this one function, so a
// fork's first request repeats the parent's bytes (docs/design.md §4.5): tools → system → messages, with the
// same cache_control placement rule everywhere.
import type { CacheControl, ContentBlock, Entry, Message, SessionHeader } from '../../common/transcript';
import { minCacheableTokens } from './cacheMinimums';
import type { MessagesRequestBody } from '../model/wire';
import type { ForkFirstRequest } from '../session/session';

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

/** The API's limit of cache_control blocks per request. */
export const MAX_BREAKPOINTS = 4;

/** A breakpoint on one block: `block` undefined means the entry's last block. */
interface Mark { entry: number; block?: number }

/**
 * Breakpoints (at most four, the API's limit):
 * - one prefix breakpoint: the end of the system prompt (covers tools + system) when that prefix reaches the
 *   model's minimum cacheable length, else the end of the startup entry, so what every child of the session
 *   shares (tools, system, startup context; seed 000) still caches on models with a 4,096-token minimum;
 * - the final entry, and the user entry just before the last assistant run — where the previous request
 *   ended — so each request reads the one before it within the provider's 20-block lookback.
 * A fork before its first answer keeps the parent's latest request's breakpoints instead (its bytes repeat
 * that request's, and it reads that request's write directly, however many calls the last turn made), plus
 * the block just before its directive: its second request's breakpoint on the closing entry finds that
 * write one block back, and sibling forks from the same point share it. A fork continued after its first
 * request failed puts that last breakpoint on its final entry (the continuation prompt) instead.
 * Breakpoints belong to entries, not messages: when a fork's directive joins the last inherited user entry
 * in one message, that entry's breakpoint stays on its own last block, where the parent had it.
 */
export function buildRequestBody(header: SessionHeader, entries: readonly Entry[], fork?: ForkFirstRequest): MessagesRequestBody {
  const cache: CacheControl = header.settings.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const startupAt = entries.length > 0 && entries[0].kind === 'startup' ? 0 : -1;
  const onSystem = startupAt < 0 || prefixTokens(header) >= minCacheableTokens(header.settings.model);
  const marks: Mark[] = [];
  if (!onSystem) marks.push({ entry: startupAt });
  if (fork && fork.parentRequestEnd < entries.length) {
    marks.push(...lastTurnMarks(entries.slice(0, fork.parentRequestEnd + 1)));
    if (fork.closingAt === entries.length - 1) marks.push(shareMark(entries, fork.closingAt));
    else marks.push({ entry: entries.length - 1 });
  } else {
    marks.push(...lastTurnMarks(entries));
  }
  const unique = dedupe(marks.filter(mark => canCarry(entries[mark.entry], mark.block)));
  // Over the limit (a fork whose prefix breakpoint is the startup entry): the oldest turn breakpoint goes.
  const budget = MAX_BREAKPOINTS - (onSystem ? 1 : 0);
  while (unique.length > budget) unique.splice(onSystem ? 0 : 1, 1);
  const body: MessagesRequestBody = {
    model: header.settings.model,
    max_tokens: header.settings.maxTokens,
    system: [{ type: 'text', text: header.systemPrompt, ...(onSystem ? { cache_control: cache } : {}) }],
    tools: header.tools.map(tool => ({ ...tool })),
    messages: entriesToMessages(unique.length === 0 ? entries : withBreakpoints(entries, unique, cache)),
  };
  if (header.settings.thinkingBudget) body.thinking = { type: 'enabled', budget_tokens: header.settings.thinkingBudget };
  return body;
}

/** Estimated tokens of tools + system (4 characters a token: rough, and on the cautious side for code-like text). */
function prefixTokens(header: SessionHeader): number {
  return Math.ceil((JSON.stringify(header.tools).length + header.systemPrompt.length) / 4);
}

/** The final entry, and the user entry before the last assistant run. */
function lastTurnMarks(entries: readonly Entry[]): Mark[] {
  const marks: Mark[] = [];
  let runStart = findLastIndex(entries, e => e.message.role === 'assistant');
  while (runStart > 0 && entries[runStart - 1].message.role === 'assistant') runStart--;
  if (runStart > 0) marks.push({ entry: runStart - 1 });
  if (entries.length > 0) marks.push({ entry: entries.length - 1 });
  return marks;
}

/** The block just before a fork's directive: its last placeholder result, else the end of the last inherited entry. */
function shareMark(entries: readonly Entry[], closingAt: number): Mark {
  const closing = entries[closingAt].message.content;
  if (closing.length > 1) return { entry: closingAt, block: closing.length - 2 };
  if (closingAt > 0 && canCarry(entries[closingAt - 1])) return { entry: closingAt - 1 };
  return { entry: closingAt };
}

function canCarry(entry: Entry, block?: number): boolean {
  const content = entry.message.content;
  const target = content[block ?? content.length - 1];
  return target !== undefined && target.type !== 'thinking' && target.type !== 'redacted_thinking';
}

function dedupe(marks: Mark[]): Mark[] {
  const seen = new Set<string>();
  const out: Mark[] = [];
  for (const mark of marks) {
    const key = `${mark.entry}:${mark.block ?? 'last'}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(mark);
    }
  }
  return out.sort((a, b) => a.entry - b.entry || (a.block ?? Infinity) - (b.block ?? Infinity));
}

function withBreakpoints(entries: readonly Entry[], marks: readonly Mark[], cache: CacheControl): Entry[] {
  return entries.map((entry, index) => {
    const here = marks.filter(mark => mark.entry === index);
    if (here.length === 0) return entry;
    const content = entry.message.content.slice();
    for (const mark of here) {
      const at = mark.block ?? content.length - 1;
      content[at] = { ...content[at], cache_control: cache } as ContentBlock;
    }
    return { ...entry, message: { role: entry.message.role, content } };
  });
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}
