// Builds the Messages API request body for a session. Parent and forks share this one function, so a
// fork's first request repeats the parent's bytes (docs/design.md §4.5): tools → system → messages, with the
// same cache_control placement rule everywhere.
import type { CacheControl, ContentBlock, Entry, Message, SessionHeader } from '../../common/transcript';
import { minCacheableTokens } from './cacheMinimums';
import type { EncodedBody, MessagesRequestBody, ThinkingConfig } from '../model/wire';
import { requestTtl } from '../model/wire';
import { encodeBody, encodeMessages } from '../model/requestBytes';
import type { ForkFirstRequest } from '../session/session';
import { modelFacts } from '../../common/models';
import { bindingLookup, chainOver, chainStart, keepValidFrom, keepValidThinking } from './thinkingBinding';
import type { ChainState } from './thinkingBinding';
import { matchingPrefix, prefixEnds } from './requestPrefix';
import type { PrefixHome, RequestPrefix } from './requestPrefix';

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
/** `dropMismatchedThinking`: the API refused this history's thinking once; it drops what fails from now on. */
export interface BodyOptions { dropMismatchedThinking?: boolean }

export function buildRequestBody(header: SessionHeader, entries: readonly Entry[], fork?: ForkFirstRequest, options: BodyOptions = {}): MessagesRequestBody {
  return fullBody(header, entries, planMarks(header, entries, fork), options);
}

/** A body with what its sender needs beside it, so nothing walks the whole history again to find it. */
export interface BuiltRequest {
  body: MessagesRequestBody;
  /** JSON.stringify({ ...body, stream: true }) as bytes. */
  encoded: EncodedBody;
  ttl: '5m' | '1h';
  /** The kept prefix body.messages starts with (its fingerprint hashes are reused: cache/fingerprint.ts). */
  prefix?: RequestPrefix;
  /** The thinking chain after the body's messages (asked for when a response carries thinking). */
  chainAfter(): ChainState;
}

/**
 * buildRequestBody, reusing a prefix kept in `home` (agent/requestPrefix.ts): the messages for entries up
 * to the parent's latest request (a fork's first request) or for all of them (any other request of a
 * parent), built once — by the parent's request or the first sibling — and kept there for the next.
 * Without a home, or for an empty history, it builds the whole body as before.
 */
export function buildRequest(header: SessionHeader, entries: readonly Entry[], fork?: ForkFirstRequest, options: BodyOptions = {}, home?: PrefixHome): BuiltRequest {
  const plan = planMarks(header, entries, fork);
  const reused = home ? withPrefix(header, entries, fork, options, plan, home) : undefined;
  if (reused) return reused;
  const body = fullBody(header, entries, plan, options);
  return { body, encoded: encodeBody(body), ttl: requestTtl(body), chainAfter: () => chainOver(body.messages, chainStart(body)) };
}

interface MarkPlan { cache: CacheControl; onSystem: boolean; marks: Mark[] }

function planMarks(header: SessionHeader, entries: readonly Entry[], fork?: ForkFirstRequest): MarkPlan {
  const cache: CacheControl = header.settings.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const startupAt = entries.length > 0 && entries[0].kind === 'startup' ? 0 : -1;
  const onSystem = startupAt < 0 || prefixTokens(header) >= minCacheableTokens(header.settings.model);
  const marks: Mark[] = [];
  if (!onSystem) marks.push({ entry: startupAt });
  if (fork && fork.parentRequestEnd < entries.length) {
    marks.push(...lastTurnMarks(entries, fork.parentRequestEnd + 1));
    if (fork.closingAt === entries.length - 1) marks.push(shareMark(entries, fork.closingAt));
    else marks.push({ entry: entries.length - 1 });
  } else {
    marks.push(...lastTurnMarks(entries));
  }
  const unique = dedupe(marks.filter(mark => canCarry(entries[mark.entry], mark.block)));
  // Over the limit (a fork whose prefix breakpoint is the startup entry): the oldest turn breakpoint goes.
  const budget = MAX_BREAKPOINTS - (onSystem ? 1 : 0);
  while (unique.length > budget) unique.splice(onSystem ? 0 : 1, 1);
  return { cache, onSystem, marks: unique };
}

/** Everything of the body but its messages. */
function bodyHead(header: SessionHeader, plan: MarkPlan): MessagesRequestBody {
  return {
    model: header.settings.model,
    max_tokens: header.settings.maxTokens,
    system: [{ type: 'text', text: header.systemPrompt, ...(plan.onSystem ? { cache_control: plan.cache } : {}) }],
    tools: header.tools.map(tool => ({ ...tool })),
    messages: [],
  };
}

/** The thinking settings and effort, after the messages (as JSON.stringify orders the keys). */
function finish(body: MessagesRequestBody, header: SessionHeader, unbound: number, options: BodyOptions): MessagesRequestBody {
  const thinking = thinkingConfig(header.settings);
  if (thinking) body.thinking = thinking;
  const effort = header.settings.effort;
  if (effort && modelFacts(body.model).effortLevels.includes(effort)) body.output_config = { effort };
  // A history the engine cannot vouch for (blocks with no binding on record): the API drops what fails
  // instead of refusing the request (preserved-thinking docs, "prefix_mismatch_behavior", read 2026-12-01).
  if ((unbound > 0 || options.dropMismatchedThinking) && body.thinking?.type === 'adaptive') body.thinking = { ...body.thinking, block_binding: { prefix_mismatch_behavior: 'drop_block' } };
  return body;
}

function fullBody(header: SessionHeader, entries: readonly Entry[], plan: MarkPlan, options: BodyOptions): MessagesRequestBody {
  const body = bodyHead(header, plan);
  body.messages = entriesToMessages(plan.marks.length === 0 ? entries : withBreakpoints(entries, plan.marks, plan.cache));
  const kept = keepValidThinking(body, bindingLookup(entries));
  body.messages = kept.messages;
  return finish(body, header, kept.unbound, options);
}

/**
 * The body as the kept prefix plus what follows it. Prompt caching matches the prompt byte for byte, tools
 * → system → messages up to each breakpoint (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
 * "Prompt caching references the entire prompt", read 2026-12-02), so the result must be exactly the full
 * build's bytes. What makes it so:
 * - the split falls between two entries; when the first message after it has the role of the prefix's last
 *   (a directive after the parent's last user entry), the two are joined into one message, as the full build
 *   joins them, and the prefix's last message is encoded again with it (only the messages before it are
 *   reused as bytes);
 * - the thinking rule runs over the rest from the chain state the prefix ended in, so it keeps and drops what
 *   the whole walk would;
 * - a prefix is reused only for the same count, the same key (model, TTL, breakpoints among its entries,
 *   system, tools) and the same entry objects at both ends (agent/requestPrefix.ts). The middle is taken on
 *   trust: entries are immutable and a history changes only by appending or by a new list with new ends.
 *   agent/prefixCheck.ts verifies every reuse in the runtime tests; returns undefined only for no entries.
 */
function withPrefix(header: SessionHeader, entries: readonly Entry[], fork: ForkFirstRequest | undefined, options: BodyOptions, plan: MarkPlan, home: PrefixHome): BuiltRequest | undefined {
  const count = fork ? Math.min(fork.parentRequestEnd + 1, entries.length) : entries.length;
  if (count <= 0) return undefined;
  const model = header.settings.model;
  const head = bodyHead(header, plan);
  const start = () => chainStart(head);
  const marksIn = plan.marks.filter(mark => mark.entry < count);
  const key = JSON.stringify([model, plan.cache, plan.onSystem, marksIn, header.systemPrompt, header.tools]);
  let prefix = matchingPrefix(home, key, entries, count);
  if (!prefix) {
    const part = count === entries.length ? entries : entries.slice(0, count);
    const messages = entriesToMessages(marksIn.length === 0 ? part : withBreakpoints(part, marksIn, plan.cache));
    const kept = keepValidFrom(model, messages, bindingLookup(part), start);
    const { blocks, oneHour } = messagesFacts(kept.messages);
    prefix = {
      key, count, ends: prefixEnds(entries, count), messages: kept.messages, lead: encodeMessages(kept.messages.slice(0, -1)),
      oneHour, unbound: kept.unbound, chain: kept.state, blockCount: head.tools.length + head.system.length + blocks,
    };
    home.prefix = prefix;
  }
  const made = prefix;
  const restEntries = entries.slice(count);
  const restMarks = plan.marks.filter(mark => mark.entry >= count).map(mark => ({ ...mark, entry: mark.entry - count }));
  const restMessages = entriesToMessages(restMarks.length === 0 ? restEntries : withBreakpoints(restEntries, restMarks, plan.cache));
  const prefixChain = () => (made.chain ??= chainOver(made.messages, start()));
  const rest = keepValidFrom(model, restMessages, bindingLookup(restEntries), prefixChain);
  const last = prefix.messages.length - 1;
  // A parent's own request is its prefix alone: its messages are used as they are (nothing changes them).
  const messages = rest.messages.length === 0 ? (prefix.messages as Message[]) : prefix.messages.concat(rest.messages);
  // The rest's first message joins the prefix's last when they share a role, as the full build joins them:
  // same-role entries (a fork's directive after the parent's last user entry) in entriesToMessages, or the
  // neighbours of a message the thinking rule emptied in keepValidThinking — both as { role, content }.
  if (rest.messages.length > 0 && last >= 0 && rest.messages[0].role === prefix.messages[last].role) {
    messages.splice(last, 2, { role: prefix.messages[last].role, content: [...prefix.messages[last].content, ...rest.messages[0].content] });
  }
  head.messages = messages;
  const body = finish(head, header, prefix.unbound + rest.unbound, options);
  const oneHour = (plan.onSystem && plan.cache.ttl === '1h') || prefix.oneHour || messagesFacts(rest.messages).oneHour;
  return {
    body,
    // The prefix's last message is encoded each time: a directive may join it.
    encoded: encodeBody(body, { count: last, bytes: prefix.lead }),
    ttl: oneHour ? '1h' : '5m',
    prefix,
    chainAfter: () => rest.state ?? chainOver(rest.messages, prefixChain()),
  };
}

/** How many blocks the messages hold, and requestTtl's rule over them: whether a block asks for 1 hour. */
function messagesFacts(messages: readonly Message[]): { blocks: number; oneHour: boolean } {
  let blocks = 0;
  let oneHour = false;
  for (const message of messages) {
    blocks += message.content.length;
    if (!oneHour) for (const block of message.content) if ((block as { cache_control?: CacheControl }).cache_control?.ttl === '1h') oneHour = true;
  }
  return { blocks, oneHour };
}

/**
 * Manual budgets only where the model takes them; on adaptive models `thinking: {type: "adaptive"}` with
 * `display: "summarized"`, so the text a model writes as thinking between tool calls comes back and shows
 * as progress (Sonnet 5.5 and Haiku 5.5 default to "omitted": an empty `thinking` field). Sources, read
 * 2026-12-01: https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 ("text between tool
 * calls comes back in thinking blocks … until it sets a display value that returns the text"),
 * https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking. `thinking.display` is outside
 * the checked prefix, so it never invalidates a block. A budget on a model without budgets is refused
 * when the chat starts (handlers/send.ts), never sent.
 */
function thinkingConfig(settings: SessionHeader['settings']): ThinkingConfig | undefined {
  const facts = modelFacts(settings.model);
  if (facts.thinking === 'manual') return settings.thinkingBudget && facts.acceptsBudgetTokens ? { type: 'enabled', budget_tokens: settings.thinkingBudget } : undefined;
  return { type: 'adaptive', display: 'summarized' };
}

/** Estimated tokens of tools + system (4 characters a token: rough, and on the cautious side for code-like text). */
function prefixTokens(header: SessionHeader): number {
  return Math.ceil((JSON.stringify(header.tools).length + header.systemPrompt.length) / 4);
}

/** The final entry, and the user entry before the last assistant run, of entries [0, end). */
function lastTurnMarks(entries: readonly Entry[], end = entries.length): Mark[] {
  const marks: Mark[] = [];
  let runStart = findLastIndex(entries, e => e.message.role === 'assistant', end);
  while (runStart > 0 && entries[runStart - 1].message.role === 'assistant') runStart--;
  if (runStart > 0) marks.push({ entry: runStart - 1 });
  if (end > 0) marks.push({ entry: end - 1 });
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

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean, end = items.length): number {
  for (let i = end - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}
