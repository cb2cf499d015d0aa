// Transcript model shared by every side (docs/design.md §3). Pure data: JSON-serialisable, no vscode/Node imports.

export type CacheControl = { type: 'ephemeral'; ttl?: '5m' | '1h' };

export interface TextBlock { type: 'text'; text: string; cache_control?: CacheControl }
export interface ThinkingBlock { type: 'thinking'; thinking: string; signature: string; cache_control?: CacheControl }
export interface RedactedThinkingBlock { type: 'redacted_thinking'; data: string; cache_control?: CacheControl }
/** An image (a chat reference, an MCP tool's result), sent inline. */
export interface ImageBlock { type: 'image'; source: { type: 'base64'; media_type: string; data: string }; cache_control?: CacheControl }
export interface ToolUseBlock { type: 'tool_use'; id: string; name: string; input: unknown; cache_control?: CacheControl }
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | (TextBlock | ImageBlock)[];
  is_error?: boolean;
  cache_control?: CacheControl;
}

export type ContentBlock = TextBlock | ImageBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock;

export type Role = 'user' | 'assistant';

export interface Message { role: Role; content: ContentBlock[] }

export type EntryKind = 'startup' | 'summary' | 'prompt' | 'response' | 'tool_results' | 'reminder' | 'notification';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** cache_creation_input_tokens by TTL, as the API reports it (priced differently). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface Entry {
  id: string;
  kind: EntryKind;
  time: string;
  message: Message;
  /** Usage of the request whose response this entry is (response entries only). */
  usage?: Usage;
  /** Why the model stopped (response entries only). */
  stopReason?: string;
  /** Summary entries only: the last entry the summary replaces in the request view. */
  replacesUpTo?: string;
}

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  cache_control?: CacheControl;
}

export interface ModelSettings {
  model: string;
  maxTokens: number;
  /** Extended-thinking budget; absent means thinking disabled. */
  thinkingBudget?: number;
  cacheTtl?: '5m' | '1h';
}

/** The fixed part of a session: decided when it starts, the cache prefix of every request. */
export interface SessionHeader {
  id: string;
  createdAt: string;
  root: string;
  title: string;
  systemPrompt: string;
  tools: ToolDefinition[];
  settings: ModelSettings;
  /** Set for forks: where they came from. */
  parent?: { sessionId: string; entryId?: string };
  /** MCP servers (API-safe names) whose tools were listed into `tools` at start; forks copy the header. */
  mcpServers?: string[];
}

/** One or more reminder blocks and nothing else (a user text between two reminders is real). */
const SYSTEM_REMINDER = /^\s*(?:<system-reminder>(?:(?!<\/system-reminder>)[\s\S])*<\/system-reminder>\s*)+$/;

export function isPureReminderText(text: string): boolean {
  return SYSTEM_REMINDER.test(text);
}

/** docs/design.md §3: a user-role entry with a block other than a tool_result, empty text or a pure reminder. */
export function isRealUserTurn(message: Message): boolean {
  if (message.role !== 'user') return false;
  return message.content.some(block => {
    if (block.type === 'tool_result') return false;
    if (block.type === 'text') return block.text.trim() !== '' && !isPureReminderText(block.text);
    return true;
  });
}

export function textOf(message: Message): string {
  return message.content.filter((b): b is TextBlock => b.type === 'text').map(b => b.text).join('');
}

export function zeroUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

/** Every input token of a request: uncached, read from the cache and written to it. */
export function inputTokens(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
}

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
  if (a.cache_creation || b.cache_creation) {
    // A side without the split wrote with the default TTL (5 m).
    const split = (u: Usage) => u.cache_creation ?? { ephemeral_5m_input_tokens: u.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 };
    sum.cache_creation = {
      ephemeral_5m_input_tokens: split(a).ephemeral_5m_input_tokens + split(b).ephemeral_5m_input_tokens,
      ephemeral_1h_input_tokens: split(a).ephemeral_1h_input_tokens + split(b).ephemeral_1h_input_tokens,
    };
  }
  return sum;
}

/** Share of a request's input read from the prompt cache, 0..1. */
export function cacheReadShare(usage: Usage): number {
  const total = inputTokens(usage);
  return total === 0 ? 0 : usage.cache_read_input_tokens / total;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value as object)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
