// What the cache explorer keeps of each request sent: the settings that key the provider's
// cache and one short hash per prompt block, in prefix order tools → system → messages. Computed from
// the very body that went out, so the explorer needs no second copy of the transcript.
import { createHash } from 'node:crypto';
import type { Usage } from '../../common/transcript';
import type { MessagesRequestBody } from '../model/wire';
import { requestTtl } from '../model/wire';
import type { RequestRecord } from '../session/records';

export function fingerprint(body: MessagesRequestBody, time: number, usage: Usage, lastEntryId: string | undefined): RequestRecord {
  const blocks: string[] = [];
  const breakpoints: number[] = [];
  const add = (where: string, block: unknown) => {
    if (hasBreakpoint(block)) breakpoints.push(blocks.length);
    blocks.push(shortHash(`${where}:${JSON.stringify(stripCacheControl(block))}`));
  };
  for (const tool of body.tools) add('tool', tool);
  for (const block of body.system) add('system', block);
  body.messages.forEach((message, i) => {
    for (const block of message.content) add(`${i}:${message.role}`, block);
  });
  return {
    time: new Date(time).toISOString(),
    model: body.model,
    thinking: body.thinking ? JSON.stringify(body.thinking) : 'off',
    ttl: requestTtl(body),
    toolBlocks: body.tools.length,
    systemBlocks: body.system.length,
    blocks,
    breakpoints,
    lastEntryId,
    usage,
  };
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
