// VS Code language-model requests → a `model/chat` request (Messages API messages and tools). Pure:
// message parts are recognised by shape (text `value`, tool call `callId`+`name`+`input`, tool result `callId`+`content`), so this runs
// without an editor; parts the API cannot take here (images, data, thinking) are left out.
import type { ModelChatParams } from '../../common/protocol/model';
import type { ContentBlock, Message, TextBlock, ToolDefinition, ToolResultBlock, ToolUseBlock } from '../../common/transcript';

/** LanguageModelChatMessageRole: User = 1, Assistant = 2, System = 3 (proposed API, sent by the Chat view). */
export const ROLE_USER = 1;
export const ROLE_ASSISTANT = 2;
export const ROLE_SYSTEM = 3;

export interface RequestMessageLike { role: number; content: readonly unknown[] }
export interface ToolLike { name: string; description: string; inputSchema?: object }

export interface BodyOptions { model: string; maxTokens: number; tools?: readonly ToolLike[]; toolRequired?: boolean }

/** The `model/chat` request for these messages: the runtime adds breakpoints, sends and retries it. */
export function buildChatParams(messages: readonly RequestMessageLike[], options: BodyOptions): Omit<ModelChatParams, 'requestId'> {
  const { system, messages: converted } = toAnthropicMessages(messages);
  const params: Omit<ModelChatParams, 'requestId'> = { model: options.model, maxTokens: options.maxTokens, messages: converted };
  if (system) params.system = system;
  const tools = (options.tools ?? []).map(toAnthropicTool);
  if (tools.length > 0) {
    params.tools = tools;
    if (options.toolRequired) params.toolChoice = 'any';
  }
  return params;
}

export function toAnthropicMessages(input: readonly RequestMessageLike[]): { system?: string; messages: Message[] } {
  const system: string[] = [];
  const messages: Message[] = [];
  for (const message of input) {
    if (message.role === ROLE_SYSTEM) {
      system.push(message.content.map(textOfPart).join(''));
      continue;
    }
    const role = message.role === ROLE_ASSISTANT ? 'assistant' : 'user';
    const content = message.content.flatMap(part => toBlocks(part, role));
    if (content.length === 0) continue;
    const previous = messages[messages.length - 1];
    // The API wants alternating roles: consecutive same-role messages become one.
    if (previous?.role === role) previous.content.push(...content);
    else messages.push({ role, content });
  }
  answerEveryToolUse(messages);
  for (const message of messages) if (message.role === 'user') toolResultsFirst(message);
  const joined = system.filter(s => s.trim() !== '').join('\n\n');
  return joined ? { system: joined, messages } : { messages };
}

export function toAnthropicTool(tool: ToolLike): ToolDefinition {
  const schema = tool.inputSchema as ToolDefinition['input_schema'] | undefined;
  const input_schema = schema && schema.type === 'object' ? schema : { type: 'object' as const, properties: {} };
  return { name: tool.name, description: tool.description, input_schema };
}

function toBlocks(part: unknown, role: 'user' | 'assistant'): ContentBlock[] {
  if (!part || typeof part !== 'object') return [];
  const p = part as Record<string, unknown>;
  if (typeof p.callId === 'string' && typeof p.name === 'string' && 'input' in p) {
    if (role !== 'assistant') return [];
    const block: ToolUseBlock = { type: 'tool_use', id: p.callId, name: p.name, input: p.input ?? {} };
    return [block];
  }
  if (typeof p.callId === 'string' && Array.isArray(p.content)) {
    if (role !== 'user') return [];
    const text = p.content.map(textOfPart).join('');
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: p.callId, content: text === '' ? '(no output)' : text };
    return [block];
  }
  // A thinking part (proposed API) also has a string `value`, plus `id` and `metadata`: never resend it as text.
  if ('id' in p && 'metadata' in p) return [];
  const text = textOfPart(part);
  return text.trim() === '' ? [] : [{ type: 'text', text } satisfies TextBlock];
}

function textOfPart(part: unknown): string {
  if (typeof part === 'string') return part;
  if (part && typeof part === 'object' && typeof (part as { value?: unknown }).value === 'string') return (part as { value: string }).value;
  return '';
}

/** The API rejects a tool_use without a tool_result right after it (a cancelled call in the history). */
function answerEveryToolUse(messages: Message[]): void {
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== 'assistant') continue;
    const uses = messages[i].content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (uses.length === 0) continue;
    let next = messages[i + 1];
    if (!next || next.role !== 'user') {
      next = { role: 'user', content: [] };
      messages.splice(i + 1, 0, next);
    }
    const answered = new Set(next.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map(b => b.tool_use_id));
    for (const use of uses) {
      if (!answered.has(use.id)) next.content.push({ type: 'tool_result', tool_use_id: use.id, content: 'No result: the call did not run.', is_error: true });
    }
  }
}

/** Tool results must lead their user message. */
function toolResultsFirst(message: Message): void {
  const results = message.content.filter(b => b.type === 'tool_result');
  if (results.length === 0) return;
  message.content = [...results, ...message.content.filter(b => b.type !== 'tool_result')];
}
