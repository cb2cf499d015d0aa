// `messages` validation modelled on the real API's 400s: block shapes, roles, and the tool_use → tool_result
// pairing our agent loop most easily gets wrong. Consecutive same-role messages are merged first, as the API does.
import { invalid } from './apiErrors';
import { isBoundSignature, thinkingSignature } from './ids';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const BLOCK_TYPES = ['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];

interface Located { block: Json; path: string; message: number }
interface Group { role: 'user' | 'assistant'; blocks: Located[] }

export interface MessageRules {
  hasTools: boolean;
  thinkingEnabled: boolean;
}

export function validateMessages(messages: unknown, rules: MessageRules): void {
  if (messages === undefined) invalid('messages: Field required');
  if (!Array.isArray(messages)) invalid('messages: Input should be a valid list');
  if (messages.length === 0) invalid('messages: List should have at least 1 item after validation, not 0');
  const groups: Group[] = [];
  messages.forEach((message: unknown, i) => {
    const path = `messages.${i}`;
    if (!isObject(message)) invalid(`${path}: Input should be a valid dictionary`);
    onlyFields(message, ['role', 'content'], path);
    const role = message.role;
    if (role !== 'user' && role !== 'assistant') invalid(`${path}.role: Input should be 'user' or 'assistant'`);
    const blocks = contentBlocks(message.content, path, role, i);
    const last = groups[groups.length - 1];
    if (last && last.role === role) last.blocks.push(...blocks);
    else groups.push({ role, blocks });
  });
  if (groups[0].role !== 'user') invalid('messages: first message must use the "user" role');
  if (groups[groups.length - 1].role !== 'user') {
    invalid('messages: final message must use the "user" role (this fake server does not support assistant prefill)');
  }
  checkToolPairing(groups, rules.hasTools);
  if (rules.thinkingEnabled) checkThinkingLeads(groups);
}

export function onlyFields(value: Json, allowed: string[], path: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) invalid(`${path ? `${path}.` : ''}${key}: Extra inputs are not permitted`);
  }
}

export function checkText(text: unknown, path: string): void {
  if (text === undefined) invalid(`${path}.text: Field required`);
  if (typeof text !== 'string') invalid(`${path}.text: Input should be a valid string`);
  if (text === '') invalid(`${path}: text content blocks must be non-empty`);
  if (text.trim() === '') invalid(`${path}: text content blocks must contain non-whitespace text`);
}

function contentBlocks(content: unknown, path: string, role: 'user' | 'assistant', index: number): Located[] {
  if (content === undefined) invalid(`${path}.content: Field required`);
  if (typeof content === 'string') {
    if (content === '') invalid(`${path}: all messages must have non-empty content`);
    checkText(content, `${path}.content`);
    return [{ block: { type: 'text', text: content }, path: `${path}.content`, message: index }];
  }
  if (!Array.isArray(content)) invalid(`${path}.content: Input should be a valid string or a list of content blocks`);
  if (content.length === 0) invalid(`${path}: all messages must have non-empty content`);
  return content.map((block: unknown, j) => {
    const blockPath = `${path}.content.${j}`;
    validateBlock(block, blockPath, role);
    return { block, path: blockPath, message: index };
  });
}

function validateBlock(block: unknown, path: string, role: 'user' | 'assistant'): asserts block is Json {
  if (!isObject(block)) invalid(`${path}: Input should be a valid dictionary`);
  const type = block.type;
  if (type === undefined) invalid(`${path}.type: Field required`);
  if (typeof type !== 'string' || !BLOCK_TYPES.includes(type)) {
    invalid(`${path}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TYPES.map(t => `'${t}'`).join(', ')}`);
  }
  const assistantOnly = type === 'tool_use' || type === 'thinking' || type === 'redacted_thinking';
  if (assistantOnly && role !== 'assistant') invalid(`${path}: \`${type}\` blocks may only appear in assistant messages`);
  if (type === 'tool_result' && role !== 'user') invalid(`${path}: \`tool_result\` blocks may only appear in user messages`);
  switch (type) {
    case 'text':
      onlyFields(block, ['type', 'text', 'cache_control', 'citations'], path);
      checkText(block.text, path);
      break;
    case 'image':
      onlyFields(block, ['type', 'source', 'cache_control'], path);
      if (!isObject(block.source)) invalid(`${path}.source: Field required`);
      break;
    case 'tool_use':
      onlyFields(block, ['type', 'id', 'name', 'input', 'cache_control'], path);
      if (typeof block.id !== 'string' || !TOOL_USE_ID.test(block.id)) invalid(`${path}.id: String should match pattern '${TOOL_USE_ID.source}'`);
      if (typeof block.name !== 'string' || !TOOL_NAME.test(block.name)) invalid(`${path}.name: String should match pattern '${TOOL_NAME.source}'`);
      if (!isObject(block.input)) invalid(`${path}.input: Input should be a valid dictionary`);
      break;
    case 'tool_result':
      validateToolResult(block, path);
      break;
    case 'thinking':
      onlyFields(block, ['type', 'thinking', 'signature', 'cache_control'], path);
      if (block.cache_control !== undefined) invalid(`${path}: cache_control cannot be set directly on thinking blocks`);
      if (typeof block.thinking !== 'string') invalid(`${path}.thinking: Field required`);
      if (typeof block.signature !== 'string') invalid(`${path}.signature: Field required`);
      // Bound signatures (the 5.5 models') are checked against their binding in preservedThinking.ts.
      if (!isBoundSignature(block.signature) && block.signature !== thinkingSignature(block.thinking)) {
        invalid(`${path}: Invalid \`signature\` in \`thinking\` block (pass thinking blocks back exactly as the server sent them)`);
      }
      break;
    case 'redacted_thinking':
      onlyFields(block, ['type', 'data'], path);
      if (typeof block.data !== 'string' || block.data === '') invalid(`${path}.data: Field required`);
      break;
  }
}

function validateToolResult(block: Json, path: string): void {
  onlyFields(block, ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'], path);
  if (typeof block.tool_use_id !== 'string') invalid(`${path}.tool_use_id: Field required`);
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') invalid(`${path}.is_error: Input should be a valid boolean`);
  const content = block.content;
  if (content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content)) invalid(`${path}.content: Input should be a valid string or a list of content blocks`);
  content.forEach((inner: unknown, k) => {
    const innerPath = `${path}.content.${k}`;
    if (!isObject(inner)) invalid(`${innerPath}: Input should be a valid dictionary`);
    if (inner.type === 'text') {
      onlyFields(inner, ['type', 'text', 'cache_control', 'citations'], innerPath);
      checkText(inner.text, innerPath);
    } else if (inner.type === 'image') {
      onlyFields(inner, ['type', 'source', 'cache_control'], innerPath);
      if (!isObject(inner.source)) invalid(`${innerPath}.source: Field required`);
    } else {
      invalid(`${innerPath}: Input tag '${String(inner.type)}' found using 'type' does not match any of the expected tags: 'text', 'image'`);
    }
  });
}

function checkToolPairing(groups: Group[], hasTools: boolean): void {
  const usesTools = groups.some(g => g.blocks.some(b => b.block.type === 'tool_use' || b.block.type === 'tool_result'));
  if (usesTools && !hasTools) invalid('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  const seenIds = new Set<string>();
  groups.forEach((group, g) => {
    if (group.role === 'assistant') {
      const uses = group.blocks.filter(b => b.block.type === 'tool_use');
      for (const use of uses) {
        const id = use.block.id as string;
        if (seenIds.has(id)) invalid(`${use.path}: \`tool_use\` ids must be unique: ${id}`);
        seenIds.add(id);
      }
      // The last group is always user (checked above), so an assistant group always has a next group.
      const answered = new Set(groups[g + 1].blocks.filter(b => b.block.type === 'tool_result').map(b => b.block.tool_use_id));
      const missing = uses.filter(u => !answered.has(u.block.id));
      if (missing.length > 0) {
        invalid(
          `messages.${missing[0].message}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
            `${missing.map(m => m.block.id).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
      return;
    }
    const previous = g > 0 ? groups[g - 1] : undefined;
    const known = new Set(previous ? previous.blocks.filter(b => b.block.type === 'tool_use').map(b => b.block.id) : []);
    const answered = new Set<unknown>();
    let otherContentSeen = false;
    for (const { block, path } of group.blocks) {
      if (block.type !== 'tool_result') {
        otherContentSeen = true;
        continue;
      }
      if (otherContentSeen) invalid(`${path}: \`tool_result\` blocks must come before any other content in the user message`);
      if (!known.has(block.tool_use_id)) {
        invalid(
          `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
        );
      }
      if (answered.has(block.tool_use_id)) invalid(`${path}: duplicate \`tool_result\` for tool_use_id ${String(block.tool_use_id)}`);
      answered.add(block.tool_use_id);
    }
  });
}

/** With thinking on, the assistant turn being continued by tool results must open with its thinking block. */
function checkThinkingLeads(groups: Group[]): void {
  const last = groups[groups.length - 1];
  if (groups.length < 2 || !last.blocks.some(b => b.block.type === 'tool_result')) return;
  const first = groups[groups.length - 2].blocks[0];
  if (first.block.type === 'thinking' || first.block.type === 'redacted_thinking') return;
  invalid(
    `${first.path}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.block.type)}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block ' +
      '(preceding the lastmost set of `tool_use` and `tool_result` blocks).',
  );
}
