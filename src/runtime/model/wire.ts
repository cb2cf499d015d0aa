// The Messages API request body as this runtime sends it: the one wire type the agent loop builds, the
// model clients send and the cache explorer fingerprints.
import type { CacheControl, Message, ToolDefinition } from '../../common/transcript';

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  system: { type: 'text'; text: string; cache_control?: CacheControl }[];
  tools: ToolDefinition[];
  messages: Message[];
  thinking?: ThinkingConfig;
  output_config?: { effort: Effort };
}

/**
 * A body as the bytes of JSON.stringify({ ...body, stream: true }) (model/requestBytes.ts), in order: sent as
 * a stream of these Buffers with their total as Content-Length, so no layer copies them into one buffer.
 */
export interface EncodedBody { chunks: readonly Buffer[]; byteLength: number }

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * `block_binding` (only for a history whose thinking the engine cannot vouch for) needs the beta header
 * THINKING_BINDING_BETA on the same request; the model client adds it whenever the body carries the field.
 */
export type ThinkingConfig =
  | { type: 'enabled'; budget_tokens: number }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted'; block_binding?: { prefix_mismatch_behavior: 'drop_block' | 'error' } };

// https://platform.claude.com/docs/en/build-with-claude/preserved-thinking ("Beta header"), read 2026-12-01.
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/**
 * The cache TTL this body's breakpoints ask for: every breakpoint carries the session's one TTL, and the
 * first need not be on the system prompt (a prefix below the model's minimum puts it on the startup entry).
 */
export function requestTtl(body: MessagesRequestBody): '5m' | '1h' {
  // A plain loop: this runs for every request over the whole history, so it builds no list of its blocks.
  const oneHour = (block: object) => (block as { cache_control?: CacheControl }).cache_control?.ttl === '1h';
  // model/chat leaves `system` out when the caller has none (an empty text block is refused).
  if (body.system?.some(oneHour)) return '1h';
  for (const message of body.messages) if (message.content.some(oneHour)) return '1h';
  return '5m';
}
