// Request validation modelled on the real Messages API (docs/design.md §8): headers, top-level fields, system, tools,
// thinking, tool_choice and cache_control rules. Messages themselves are checked in validateMessages.ts.
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, invalid } from './apiErrors';
import { TOOL_NAME, checkText, isObject, onlyFields, validateMessages } from './validateMessages';
import type { Json } from './validateMessages';
import { checkSampling, isPreservedModel } from './preservedThinking';
import { automaticTarget } from './cache';

export type Endpoint = 'messages' | 'count_tokens';

const MESSAGE_FIELDS = [
  'model', 'messages', 'max_tokens', 'system', 'tools', 'tool_choice', 'thinking', 'stream',
  'metadata', 'stop_sequences', 'temperature', 'top_k', 'top_p', 'service_tier', 'output_config', 'cache_control',
];
const COUNT_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config'];
const MAX_BREAKPOINTS = 4;

/**
 * The key may come as x-api-key or as `Authorization: Bearer <key>`: @anthropic-ai/sdk 1.x sends the latter.
 * Any anthropic-version value is accepted (the SDK's default moves with its releases), but it must be there.
 */
export function checkHeaders(headers: IncomingHttpHeaders, apiKey: string | undefined): void {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
  const header = headers['x-api-key'];
  const key = (typeof header === 'string' && header !== '' ? header : undefined) ?? bearer;
  if (key === undefined) {
    throw new ApiError(401, 'authentication_error', 'x-api-key header is required (or Authorization: Bearer <key>)');
  }
  if (apiKey !== undefined && key !== apiKey) throw new ApiError(401, 'authentication_error', 'invalid x-api-key');
  if (!headers['anthropic-version']) invalid('anthropic-version: header is required');
}

export function validateRequest(body: unknown, endpoint: Endpoint): asserts body is Json {
  if (!isObject(body)) invalid('Request body must be a JSON object');
  onlyFields(body, endpoint === 'messages' ? MESSAGE_FIELDS : COUNT_FIELDS, '');
  if (body.model === undefined) invalid('model: Field required');
  if (typeof body.model !== 'string' || body.model === '') invalid('model: Input should be a valid string');
  if (endpoint === 'messages') validateMaxTokens(body.max_tokens);
  if (body.stream !== undefined && typeof body.stream !== 'boolean') invalid('stream: Input should be a valid boolean');
  validateSystem(body.system);
  const toolNames = validateTools(body.tools);
  // The 5.5 models' thinking rules live in preservedThinking.ts (checked after this, with the headers).
  const thinkingEnabled = isPreservedModel(body.model) ? false : validateThinking(body.thinking, body.max_tokens, endpoint, String(body.model), body.output_config);
  // Sampling parameters away from their defaults are a 400 on Claude 4.7 and later: third-party copies only
  // (read 2026-12-02: a research note quoting the thinking-troubleshooting table, 2026-10, "a non-default
  // temperature/top_p/top_k returns 400 on Claude 4.7-and-later models"; effloow's Opus 4.7 guide, 2026-04).
  // The model table refuses to send them there too (models.ts). The 5.5 models: preservedThinking.ts.
  if (!isPreservedModel(body.model) && NO_BUDGETS.test(String(body.model))) checkSampling(body);
  validateToolChoice(body.tool_choice, toolNames, thinkingEnabled);
  validateMessages(body.messages, { hasTools: toolNames.size > 0, thinkingEnabled });
  validateCacheControls(body);
}

function validateMaxTokens(maxTokens: unknown): void {
  if (maxTokens === undefined) invalid('max_tokens: Field required');
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens)) invalid('max_tokens: Input should be a valid integer');
  if (maxTokens < 1) invalid('max_tokens: Input should be greater than or equal to 1');
}

function validateSystem(system: unknown): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system)) invalid('system: Input should be a valid string or a list of text blocks');
  system.forEach((block: unknown, i) => {
    const path = `system.${i}`;
    if (!isObject(block) || block.type !== 'text') invalid(`${path}: system blocks must be text blocks ({"type":"text","text":...})`);
    onlyFields(block, ['type', 'text', 'cache_control', 'citations'], path);
    checkText(block.text, path);
  });
}

function validateTools(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (tools === undefined) return names;
  if (!Array.isArray(tools)) invalid('tools: Input should be a valid list');
  tools.forEach((tool: unknown, i) => {
    const path = `tools.${i}`;
    if (!isObject(tool)) invalid(`${path}: Input should be a valid dictionary`);
    onlyFields(tool, ['type', 'name', 'description', 'input_schema', 'cache_control'], path);
    // Server tools (web search, …) are not simulated; only client tools are accepted.
    if (tool.type !== undefined && tool.type !== 'custom') invalid(`${path}.type: this fake server only supports custom tools`);
    if (tool.name === undefined) invalid(`${path}.name: Field required`);
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) invalid(`${path}.name: String should match pattern '${TOOL_NAME.source}'`);
    if (typeof tool.description !== 'string' || tool.description === '') invalid(`${path}.description: Field required`);
    if (tool.input_schema === undefined) invalid(`${path}.input_schema: Field required`);
    if (!isObject(tool.input_schema)) invalid(`${path}.input_schema: Input should be a valid dictionary`);
    if (tool.input_schema.type !== 'object') invalid(`${path}.input_schema.type: Input should be 'object'`);
    if (names.has(tool.name)) invalid('tools: Tool names must be unique.');
    names.add(tool.name);
  });
  return names;
}

/**
 * Adaptive thinking (`{type: "adaptive", display?}`, effort in output_config) on the models that have it:
 * Opus 4.6 and later, Sonnet 4.6 and later, the 5.x family (model overviews and the Haiku 5.5 comparison
 * table, read 2026-12-01; https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking). Earlier
 * models know only enabled/disabled. The 5.5 models' stricter rules are in preservedThinking.ts.
 * Returns whether manual (budgeted) thinking is on, whose rules the caller then checks.
 */
const ADAPTIVE = /^claude-(opus-4-[6-9]|sonnet-4-6|opus-5|sonnet-5|fable-5|mythos-5)/;
/**
 * https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting (read 2026-12-02): extended
 * thinking "is deprecated on Claude Opus 4.6 and Claude Sonnet 4.6 (it still works there). Claude Opus 4.7,
 * Claude Opus 4.8, Claude Sonnet 5, Claude Fable 5, and Claude Mythos 5 do not support it and reject requests
 * that use it, returning a 400 error"; the extended-thinking page: such a 400's message starts with
 * `"thinking.type.enabled" is not supported` (full wording as whats-new-opus-5-5 quotes it). Fable and Mythos
 * (every 5.x) keep thinking always on, so `disabled` is refused too (the troubleshooting table as quoted in
 * notes of 2026-10; wording as for Opus 5.5); Opus 5 accepts `disabled` only at effort high or lower
 * (whats-new-opus-5; that 400's wording is not documented, chosen here).
 */
const NO_BUDGETS = /^claude-(opus-4-[7-9]|opus-5|sonnet-5|fable-5|mythos-5)/;
const ALWAYS_ON = /^claude-(fable-5|mythos-5)/;
const ENABLED_REFUSED = '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const DISABLED_REFUSED = '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';

function validateThinking(thinking: unknown, maxTokens: unknown, endpoint: Endpoint, model: string, outputConfig: unknown): boolean {
  if (thinking === undefined) return false;
  if (!isObject(thinking)) invalid('thinking: Input should be a valid dictionary');
  if (thinking.type === 'enabled' && NO_BUDGETS.test(model)) invalid(ENABLED_REFUSED);
  if (thinking.type === 'disabled') {
    if (ALWAYS_ON.test(model)) invalid(DISABLED_REFUSED);
    const effort = isObject(outputConfig) ? outputConfig.effort : undefined;
    if (/^claude-opus-5(?:-\d{8})?$/.test(model) && (effort === 'xhigh' || effort === 'max')) {
      invalid('thinking.type "disabled" is accepted on this model only at output_config.effort "high" or lower.');
    }
    onlyFields(thinking, ['type'], 'thinking.disabled');
    return false;
  }
  if (thinking.type === 'adaptive' && ADAPTIVE.test(model)) {
    onlyFields(thinking, ['type', 'display'], 'thinking.adaptive');
    if (thinking.display !== undefined && thinking.display !== 'summarized' && thinking.display !== 'omitted') invalid("thinking.adaptive.display: Input should be 'summarized' or 'omitted'");
    // Adaptive thinking is optional for the model (it may answer, or call a tool, without thinking), and it
    // allows forced tool use: neither of manual thinking's two rules applies (adaptive-thinking page and
    // thinking-tool-workflows page, read 2026-12-01). The 5.5 models' own refusals are in preservedThinking.ts.
    return false;
  }
  if (thinking.type !== 'enabled') invalid(ADAPTIVE.test(model) ? "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'" : "thinking.type: Input should be 'enabled' or 'disabled'");
  onlyFields(thinking, ['type', 'budget_tokens'], 'thinking.enabled');
  const budget = thinking.budget_tokens;
  if (budget === undefined) invalid('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) invalid('thinking.enabled.budget_tokens: Input should be a valid integer');
  if (budget < 1024) invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (endpoint === 'messages' && budget >= (maxTokens as number)) {
    invalid('`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size');
  }
  return true;
}

function validateToolChoice(choice: unknown, toolNames: Set<string>, thinkingEnabled: boolean): void {
  if (choice === undefined) return;
  if (!isObject(choice)) invalid('tool_choice: Input should be a valid dictionary');
  const type = choice.type;
  if (type !== 'auto' && type !== 'any' && type !== 'none' && type !== 'tool') {
    invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
  onlyFields(choice, type === 'tool' ? ['type', 'name', 'disable_parallel_tool_use'] : ['type', 'disable_parallel_tool_use'], `tool_choice.${type}`);
  if (type === 'tool' && (typeof choice.name !== 'string' || !toolNames.has(choice.name))) {
    invalid(`tool_choice.tool.name: Tool '${String(choice.name)}' not found in provided tools`);
  }
  if (thinkingEnabled && (type === 'any' || type === 'tool')) invalid('Thinking may not be enabled when tool_choice forces tool use.');
}

interface Breakpoint { path: string; control: unknown }

/** Every cache_control in prefix order tools → system → messages (tool_result contents included). */
function breakpointsOf(body: Json): Breakpoint[] {
  const found: Breakpoint[] = [];
  const visit = (block: unknown, path: string): void => {
    if (isObject(block) && block.cache_control !== undefined) found.push({ path, control: block.cache_control });
  };
  if (Array.isArray(body.tools)) body.tools.forEach((tool, i) => visit(tool, `tools.${i}`));
  if (Array.isArray(body.system)) body.system.forEach((block, i) => visit(block, `system.${i}`));
  (body.messages as Json[]).forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block: unknown, j) => {
      visit(block, `messages.${i}.content.${j}`);
      if (isObject(block) && Array.isArray(block.content)) {
        block.content.forEach((inner, k) => visit(inner, `messages.${i}.content.${j}.content.${k}`));
      }
    });
  });
  return found;
}

/**
 * Automatic caching's edge cases (prompt-caching, "Edge cases", verbatim in copies of 2026-07 to 2026-10, read
 * 2026-12-02): the last block's own cache_control with "the same TTL" is a no-op, with "a different TTL" a 400;
 * "If 4 explicit block-level breakpoints already exist, the API returns a 400 error (no slots left for automatic
 * caching)". The 400s' wording is not documented, chosen here.
 */
function automaticBreakpoint(body: Json, explicit: Breakpoint[]): Breakpoint | undefined {
  const control = body.cache_control;
  if (control === undefined) return undefined;
  const target = automaticTarget(body);
  if (!target) return { path: 'cache_control', control };
  const path = `messages.${target.message}.content.${target.block}`;
  const own = explicit.find(b => b.path === path || b.path.startsWith(`${path}.`));
  if (!own) {
    if (explicit.length >= MAX_BREAKPOINTS) invalid(`cache_control: automatic caching needs a free breakpoint, and ${explicit.length} blocks already have cache_control (at most ${MAX_BREAKPOINTS}).`);
    return { path, control };
  }
  const ttlOf = (c: unknown) => (isObject(c) ? c.ttl ?? '5m' : undefined);
  if (isObject(control) && ttlOf(own.control) !== ttlOf(control)) {
    invalid(`cache_control: the last block (${path}) has its own cache_control with ttl='${String(ttlOf(own.control))}', not the top-level ttl='${String(ttlOf(control))}'.`);
  }
  return undefined;
}

function validateCacheControls(body: Json): void {
  const explicit = breakpointsOf(body);
  const automatic = automaticBreakpoint(body, explicit);
  const breakpoints = automatic ? [...explicit, automatic] : explicit;
  let fiveMinuteSeen: string | undefined;
  for (const { path, control } of breakpoints) {
    const at = `${path}.cache_control`;
    if (!isObject(control)) invalid(`${at}: Input should be a valid dictionary`);
    onlyFields(control, ['type', 'ttl'], at);
    if (control.type !== 'ephemeral') invalid(`${at}.type: Input should be 'ephemeral'`);
    const ttl = control.ttl ?? '5m';
    if (ttl !== '5m' && ttl !== '1h') invalid(`${at}.ttl: Input should be '5m' or '1h'`);
    if (ttl === '5m') fiveMinuteSeen ??= path;
    if (ttl === '1h' && fiveMinuteSeen !== undefined) {
      invalid(`${at}: a cache_control block with ttl='1h' must not come after one with ttl='5m' (${fiveMinuteSeen}); order is tools, system, messages`);
    }
  }
  if (breakpoints.length > MAX_BREAKPOINTS) {
    invalid(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`);
  }
}
