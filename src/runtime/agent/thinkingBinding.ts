// Preserved thinking by construction. On models that run the API's prefix check, a thinking block is bound
// to what came before it when it was written; a request that replays it under anything else is refused (or,
// with drop_block, loses it and every later block). So the engine records each block's binding when it
// arrives (bindingsFor) and, building any later request, leaves out exactly the blocks the API would no
// longer accept (keepValidThinking). Rules, from https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
// and .../preserved-thinking/prefix-checks (both read 2026-12-01):
// - the prefix is the top-level `system`, the `tools`, and every message before the block; `cache_control`
//   markers and every other parameter (effort, max_tokens, thinking.display, tool_choice) are not part of it,
//   nor are earlier thinking blocks themselves;
// - each block also records which thinking block preceded it: leaving out the oldest blocks, the newest, or
//   all is valid; leaving one out between others (a gap), or putting back one left out before, invalidates
//   every later block that was written while the sequence was different;
// - a block the current model cannot read is dropped by the API without an error; the engine leaves it out.
import { createHash } from 'node:crypto';
import type { ContentBlock, Entry, Message, ThinkingBinding } from '../../common/transcript';
import { modelFacts } from '../../common/models';
import type { MessagesRequestBody } from '../model/wire';

type ThinkingLike = Extract<ContentBlock, { type: 'thinking' | 'redacted_thinking' }>;

function isThinking(block: ContentBlock): block is ThinkingLike {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// Every request replays the whole history, so the digests are built to cost only what is new: an entry's
// blocks are frozen objects, each hashed once (by identity; a block that is not frozen yet, such as a
// breakpoint copy or a response being recorded, is hashed each time), and a prefix digest is a chain — the
// digest before a block and that block's hash give the digest after it — remembered on the block, so a
// block seen under the same prefix again costs a lookup. Per request the hashing is O(new blocks).
const ids = new WeakMap<ThinkingLike, string>();
const blockHashes = new WeakMap<ContentBlock, string>();
const chainSteps = new WeakMap<ContentBlock, { before: string; role: Message['role']; after: string }>();
const starts = new Map<string, string>();

/** A short name for a thinking block: its signature (or redacted data) hashed. */
export function thinkingId(block: ThinkingLike): string {
  let id = ids.get(block);
  if (id === undefined) {
    id = sha(block.type === 'thinking' ? block.signature : block.data).slice(0, 24);
    if (Object.isFrozen(block)) ids.set(block, id);
  }
  return id;
}

/** JSON with sorted keys and no cache_control anywhere: the docs say key order and breakpoints do not count. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).filter(key => key !== 'cache_control').sort();
    return `{${keys.map(key => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Digest of system + tools: where every chain starts (a few known starts are kept; they rarely change). */
function startDigest(body: Pick<MessagesRequestBody, 'system' | 'tools'>): string {
  // The key is plain JSON (fast, exact); the digest is of the canonical form, so key order never counts.
  const key = JSON.stringify([(body.system ?? []).map(block => block.text), body.tools ?? []]);
  let start = starts.get(key);
  if (start === undefined) {
    start = sha(`system:${canonical((body.system ?? []).map(block => block.text))}\ntools:${canonical(body.tools ?? [])}`);
    if (starts.size >= 16) starts.clear();
    starts.set(key, start);
  }
  return start;
}

/** The prefix digest after `block` (said by `role`), given the digest before it. */
function extend(before: string, role: Message['role'], block: ContentBlock): string {
  const frozen = Object.isFrozen(block);
  const step = frozen ? chainSteps.get(block) : undefined;
  if (step && step.before === before && step.role === role) return step.after;
  let hash = frozen ? blockHashes.get(block) : undefined;
  if (hash === undefined) {
    hash = sha(canonical(block));
    if (frozen) blockHashes.set(block, hash);
  }
  const after = sha(`${before}|${role}:${hash}`);
  if (frozen) chainSteps.set(block, { before, role, after });
  return after;
}

/**
 * Where the prefix chain stands after some messages: the digest of everything before, and the last thinking
 * block sent (null: none yet). Requests that repeat a prefix keep its state (agent/requestPrefix.ts).
 */
export interface ChainState { prefix: string; last: string | null }

/** The state before any message: the digest of system + tools. */
export function chainStart(body: Pick<MessagesRequestBody, 'system' | 'tools'>): ChainState {
  return { prefix: startDigest(body), last: null };
}

/** The state after `messages`, from `from`. */
export function chainOver(messages: readonly Message[], from: ChainState): ChainState {
  let prefix = from.prefix;
  let last = from.last;
  for (const message of messages) {
    for (const block of message.content) {
      if (isThinking(block)) last = thinkingId(block);
      else prefix = extend(prefix, message.role, block);
    }
  }
  return { prefix, last };
}

/**
 * The bindings of a response's thinking blocks, from the body that produced it: each block's prefix is the
 * request's content plus the response blocks before it; its predecessor the last thinking block sent (or
 * the previous one in this response). `after`: the chain's state after the body's messages, when known.
 */
export function bindingsFor(body: MessagesRequestBody, content: readonly ContentBlock[], after?: () => ChainState): ThinkingBinding[] | undefined {
  if (!content.some(isThinking)) return undefined;
  let { prefix, last } = after ? after() : chainOver(body.messages, chainStart(body));
  const bindings: ThinkingBinding[] = [];
  for (const block of content) {
    if (isThinking(block)) {
      bindings.push({ prefix, after: last, model: body.model });
      last = thinkingId(block);
    } else {
      prefix = extend(prefix, 'assistant', block);
    }
  }
  return bindings;
}

/** Each recorded thinking block of `entries` by its id. */
export function bindingLookup(entries: readonly Entry[]): Map<string, ThinkingBinding> {
  const found = new Map<string, ThinkingBinding>();
  for (const entry of entries) {
    if (!entry.thinkingBindings) continue;
    let k = 0;
    for (const block of entry.message.content) {
      if (!isThinking(block)) continue;
      const binding = entry.thinkingBindings[k++];
      if (binding) found.set(thinkingId(block), binding);
    }
  }
  return found;
}

export interface KeptThinking {
  messages: Message[];
  /** Thinking blocks left out because the API would no longer accept them here. */
  dropped: number;
  /** Blocks with no binding on record (written before bindings were recorded, or elsewhere): unverifiable. */
  unbound: number;
}

/**
 * The body's messages with every thinking block the API would refuse left out. Models without the prefix
 * check keep all their blocks, as before. A message left empty goes, and same-role neighbours are joined,
 * as the API itself would join them.
 */
export function keepValidThinking(body: MessagesRequestBody, bindings: ReadonlyMap<string, ThinkingBinding>): KeptThinking {
  return keepValidFrom(body.model, body.messages, bindings, () => chainStart(body));
}

/**
 * keepValidThinking over `messages` that follow a prefix whose chain ends at `from` (asked for only when
 * needed). `state`: the chain after the kept messages, when it was walked (models with the prefix check).
 */
export function keepValidFrom(model: string, messages: Message[], bindings: ReadonlyMap<string, ThinkingBinding>, from: () => ChainState): KeptThinking & { state?: ChainState } {
  const facts = modelFacts(model);
  if (!facts.prefixCheck || !messages.some(message => message.content.some(isThinking))) return { messages, dropped: 0, unbound: 0 };
  const readable = (source: string) => source === model || facts.readsThinkingFrom.includes(source);
  const start = from();
  let prefix = start.prefix;
  let lastKept = start.last;
  let dropped = 0;
  let unbound = 0;
  const kept: Message[] = [];
  for (const message of messages) {
    const content: ContentBlock[] = [];
    for (const block of message.content) {
      if (!isThinking(block)) {
        prefix = extend(prefix, message.role, block);
        content.push(block);
        continue;
      }
      const binding = bindings.get(thinkingId(block));
      if (!binding) {
        // Nothing to check it against: it goes as it is, under drop_block (request.ts).
        unbound++;
        content.push(block);
        lastKept = thinkingId(block);
        continue;
      }
      const valid = readable(binding.model) && binding.prefix === prefix && (binding.after === lastKept || lastKept === null);
      if (valid) {
        content.push(block);
        lastKept = thinkingId(block);
      } else {
        dropped++;
      }
    }
    if (content.length === 0) continue;
    const previous = kept[kept.length - 1];
    if (previous && previous.role === message.role) kept[kept.length - 1] = { role: message.role, content: [...previous.content, ...content] };
    else kept.push(content.length === message.content.length ? message : { role: message.role, content });
  }
  return { messages: dropped === 0 ? messages : kept, dropped, unbound, state: { prefix, last: lastKept } };
}
