// Prompt-cache simulation (docs/design.md §4.5, §8), so cache-read shares in tests and benchmarks are measured:
// - the prompt is flattened into blocks in prefix order tools → system → messages (one block per tool, per
//   system text block, per message content block);
// - tokens per block = ceil(JSON.stringify(block without cache_control).length / 4): a stable, cheap stand-in
//   for the tokenizer; only ratios matter to the tests;
// - entries are keyed by (TTL, hash of the prefix with cache_control stripped), so moving a breakpoint does
//   not change the key, and are written at every breakpoint whose prefix reaches the minimum;
// - a breakpoint reads the longest cached prefix ending at most 20 blocks back (itself and the 19 before);
// - writes become readable only when the writing response starts (commit), and expire after their TTL,
//   which a read refreshes;
// - automatic caching (a top-level cache_control) puts one more breakpoint on the last block that can take one
//   (automaticTarget; validate.ts checks its documented 400s).
import { createHash } from 'node:crypto';
import type { Usage } from '../../src/common/transcript';
import { stripsEarlierThinking } from './cacheMinimums';
import { isObject } from './validateMessages';
import type { Json } from './validateMessages';

export type Ttl = '5m' | '1h';
export type InputUsage = Omit<Usage, 'output_tokens'>;

const TTL_MS: Record<Ttl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };
export const LOOKBACK_BLOCKS = 20;

export interface PromptBlock {
  /** What the prefix hash covers: the block (cache_control stripped) and where it sits. */
  key: string;
  tokens: number;
  /** Set when the block carries a cache_control breakpoint. */
  ttl?: Ttl;
}

export interface CachePlan {
  usage: InputUsage;
  /** Makes this request's writes readable: call when its response starts. */
  commit(): void;
}

export interface CacheStats {
  /** Unexpired entries. */
  entries: number;
  /** Entries created (not refreshed) by committed requests. */
  writes: number;
  /** Requests that read a cached prefix. */
  reads: number;
}

function stripCacheControl(block: unknown): unknown {
  if (!isObject(block)) return block;
  const { cache_control: _dropped, ...rest } = block;
  if (Array.isArray(rest.content)) rest.content = rest.content.map(stripCacheControl);
  return rest;
}

/** A nested cache_control (inside tool_result content) marks its enclosing block as the breakpoint. */
function ttlOf(block: unknown): Ttl | undefined {
  if (!isObject(block)) return undefined;
  if (isObject(block.cache_control)) return (block.cache_control.ttl as Ttl | undefined) ?? '5m';
  if (Array.isArray(block.content)) {
    for (const inner of block.content) {
      const ttl = ttlOf(inner);
      if (ttl) return ttl;
    }
  }
  return undefined;
}

export function estimateTokens(block: unknown): number {
  return Math.ceil(JSON.stringify(stripCacheControl(block)).length / 4);
}

function contentOf(message: Json): unknown[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
}

/**
 * On models that strip earlier thinking (stripsEarlierThinking: the documented rule), thinking blocks of
 * assistant turns before the last user turn holding any non-tool_result block (text beside tool results
 * included) leave the prefix; user turns of tool results only keep them. Other models keep them all.
 */
function firstKeptThinkingMessage(messages: Json[], model: string): number {
  if (!stripsEarlierThinking(model)) return 0;
  let lastPlain = 0;
  let i = 0;
  while (i < messages.length) {
    const start = i;
    let hasOther = false;
    // Consecutive same-role messages form one turn, as the API merges them.
    while (i < messages.length && messages[i].role === messages[start].role) {
      hasOther ||= contentOf(messages[i]).some(b => !(isObject(b) && b.type === 'tool_result'));
      i += 1;
    }
    if (messages[start].role === 'user' && hasOther) lastPlain = start;
  }
  return lastPlain;
}

/**
 * Automatic caching's breakpoint (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
 * "Automatic caching", quoted verbatim in copies of 2026-07 to 2026-10, read 2026-12-02): the last block; one that
 * is "not eligible" makes the system walk "backwards to find the nearest eligible block. If none is found, caching
 * is skipped." Which blocks are ineligible is not listed: thinking blocks, which cannot carry cache_control, here.
 */
export function automaticTarget(body: Json): { message: number; block: number } | undefined {
  if (!isObject(body.cache_control) || !Array.isArray(body.messages)) return undefined;
  const messages = body.messages as Json[];
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = contentOf(messages[i]);
    for (let j = content.length - 1; j >= 0; j--) {
      const block = content[j];
      if (!(isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking'))) return { message: i, block: j };
    }
  }
  return undefined;
}

export function flattenPrompt(body: Json): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (where: string, block: unknown): void => {
    blocks.push({ key: `${where}:${JSON.stringify(stripCacheControl(block))}`, tokens: estimateTokens(block), ttl: ttlOf(block) });
  };
  // The model, and for messages the thinking, effort and tool_choice settings, are part of what a prefix means
  // (prompt-caching, "What invalidates the cache": tool_choice and "thinking parameters, effort setting"
  // invalidate the messages; for thinking and effort the tools and system are "model-specific", kept here), as
  // the page's table was quoted on 2026-10-02 (read 2026-12-02).
  const head = `model=${String(body.model)}`;
  const effort = isObject(body.output_config) ? body.output_config.effort ?? null : null;
  const messagesHead = `thinking=${JSON.stringify(body.thinking ?? null)};effort=${JSON.stringify(effort)};tool_choice=${JSON.stringify(body.tool_choice ?? null)}`;
  if (Array.isArray(body.tools)) body.tools.forEach(tool => add(`${head};tool`, tool));
  if (typeof body.system === 'string') add(`${head};system`, { type: 'text', text: body.system });
  else if (Array.isArray(body.system)) body.system.forEach(block => add(`${head};system`, block));
  const messages = body.messages as Json[];
  const keepThinkingFrom = firstKeptThinkingMessage(messages, String(body.model));
  const auto = automaticTarget(body);
  const autoTtl = isObject(body.cache_control) ? (body.cache_control.ttl as Ttl | undefined) ?? '5m' : undefined;
  messages.forEach((message, i) => {
    contentOf(message).forEach((block, j) => {
      const thinking = isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking');
      if (thinking && i < keepThinkingFrom) return;
      add(`${head};${messagesHead};${i}:${String(message.role)}`, block);
      if (auto && auto.message === i && auto.block === j) blocks[blocks.length - 1].ttl ??= autoTtl;
    });
  });
  return blocks;
}

export function countInputTokens(body: Json): number {
  return flattenPrompt(body).reduce((sum, block) => sum + block.tokens, 0);
}

interface Entry { ttl: Ttl; expiresAt: number }

export class PromptCache {
  private readonly entries = new Map<string, Entry>();
  private writes = 0;
  private reads = 0;

  constructor(
    /** Smallest cached prefix: one number for every model, or per model (the documented minimums). */
    private readonly minTokens: number | ((model: string) => number),
    private readonly now: () => number,
  ) {}

  plan(body: Json): CachePlan {
    const blocks = flattenPrompt(body);
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let hash = '';
    let tokens = 0;
    for (const block of blocks) {
      // Chained, so each hash covers the whole prefix up to and including its block.
      hash = createHash('sha256').update(hash).update(block.key).digest('hex');
      hashes.push(hash);
      tokens += block.tokens;
      cumulative.push(tokens);
    }
    const breakpoints = blocks.flatMap((block, i) => (block.ttl ? [{ at: i, ttl: block.ttl }] : []));
    const now = this.now();
    const minTokens = typeof this.minTokens === 'number' ? this.minTokens : this.minTokens(String(body.model));

    let readEnd = -1;
    for (const { at, ttl } of breakpoints) {
      for (let j = at; j >= Math.max(0, at - (LOOKBACK_BLOCKS - 1)); j--) {
        const entry = this.live(`${ttl}:${hashes[j]}`, now);
        if (!entry) continue;
        entry.expiresAt = now + TTL_MS[entry.ttl];
        readEnd = Math.max(readEnd, j);
        break;
      }
    }
    const read = readEnd >= 0 ? cumulative[readEnd] : 0;
    const last = breakpoints[breakpoints.length - 1];
    const created = last && last.at > readEnd && cumulative[last.at] >= minTokens ? cumulative[last.at] - read : 0;
    const pending = breakpoints.filter(b => cumulative[b.at] >= minTokens).map(b => ({ key: `${b.ttl}:${hashes[b.at]}`, ttl: b.ttl }));
    if (read > 0) this.reads += 1;

    let committed = false;
    return {
      usage: { input_tokens: tokens - read - created, cache_read_input_tokens: read, cache_creation_input_tokens: created },
      commit: () => {
        if (committed) return;
        committed = true;
        const at = this.now();
        for (const { key, ttl } of pending) {
          if (!this.live(key, at)) this.writes += 1;
          this.entries.set(key, { ttl, expiresAt: at + TTL_MS[ttl] });
        }
      },
    };
  }

  stats(): CacheStats {
    const now = this.now();
    const entries = [...this.entries.keys()].filter(key => this.live(key, now)).length;
    return { entries, writes: this.writes, reads: this.reads };
  }

  clear(): void {
    this.entries.clear();
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= now) this.entries.delete(key);
    return entry && entry.expiresAt > now ? entry : undefined;
  }
}
