// What the cache explorer keeps of each request sent: the settings that key the provider's
// cache and one short hash per prompt block, in prefix order tools → system → messages. Computed from
// the very body that went out, so the explorer needs no second copy of the transcript.
import { createHash } from 'node:crypto';
import type { InputTransformation, Usage } from '../../common/transcript';
import type { MessagesRequestBody } from '../model/wire';
import { requestTtl } from '../model/wire';
import type { RequestRecord } from '../session/records';
import type { RequestPrefix } from '../agent/requestPrefix';

/**
 * `known`: what the body was built from — the prefix its messages start with, whose hashes are kept on it
 * (computed by the first request that repeats it, reused by the next: a fork's first request hashes only
 * what follows its parent's latest request), and its TTL.
 */
export function fingerprint(
  body: MessagesRequestBody, time: number, usage: Usage, lastEntryId: string | undefined, inputTransformations?: InputTransformation[],
  known?: { prefix?: RequestPrefix; ttl: '5m' | '1h' },
): RequestRecord {
  const prefix = known?.prefix;
  const reuse = prefix?.blocks && prefix.breakpoints ? prefix : undefined;
  const blocks: string[] = reuse ? reuse.blocks!.slice() : [];
  const breakpoints: number[] = reuse ? reuse.breakpoints!.slice() : [];
  const add = (where: string, block: unknown) => {
    if (hasBreakpoint(block)) breakpoints.push(blocks.length);
    blocks.push(blockHash(where, block));
  };
  if (!reuse) {
    for (const tool of body.tools) add('tool', tool);
    for (const block of body.system) add('system', block);
  }
  // After a kept prefix: the rest of its last message (a directive joined to it), then the messages after it.
  const from = reuse ? reuse.messages.length - 1 : 0;
  for (let i = Math.max(from, 0); i < body.messages.length; i++) {
    const message = body.messages[i];
    const skip = reuse && i === from ? reuse.messages[from].content.length : 0;
    for (let b = skip; b < message.content.length; b++) add(`${i}:${message.role}`, message.content[b]);
  }
  if (prefix && !reuse) {
    prefix.blocks = blocks.slice(0, prefix.blockCount);
    prefix.breakpoints = breakpoints.filter(at => at < prefix.blockCount);
  }
  return {
    time: new Date(time).toISOString(),
    model: body.model,
    thinking: body.thinking ? JSON.stringify(body.thinking) : 'off',
    ttl: known?.ttl ?? requestTtl(body),
    toolBlocks: body.tools.length,
    systemBlocks: body.system.length,
    blocks,
    breakpoints,
    lastEntryId,
    usage,
    ...(inputTransformations?.length ? { inputTransformations } : {}),
  };
}

/**
 * A frozen block (committed history) hashes the same at the same place every time: its hash is kept beside
 * it, so each request hashes only what is new (a fork's first request: its directive), not every block of
 * the history again on the runtime's thread. A block with a breakpoint is a fresh copy, hashed each time.
 */
const hashOfFrozen = new WeakMap<object, { where: string; hash: string }>();

function blockHash(where: string, block: unknown): string {
  const frozen = block !== null && typeof block === 'object' && Object.isFrozen(block) ? block : undefined;
  const known = frozen && hashOfFrozen.get(frozen);
  if (known && known.where === where) return known.hash;
  const hash = shortHash(`${where}:${JSON.stringify(stripCacheControl(block))}`);
  if (frozen) hashOfFrozen.set(frozen, { where, hash });
  return hash;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 12);
}

function hasBreakpoint(block: unknown): boolean {
  if (!block || typeof block !== 'object') return false;
  const b = block as { cache_control?: unknown; content?: unknown };
  if (b.cache_control) return true;
  return Array.isArray(b.content) && b.content.some(hasBreakpoint);
}

function stripCacheControl(block: unknown): unknown {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return block;
  const { cache_control: _dropped, ...rest } = block as Record<string, unknown>;
  if (Array.isArray(rest.content)) rest.content = rest.content.map(stripCacheControl);
  return rest;
}
