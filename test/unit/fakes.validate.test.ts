// Each validation rule of the fake server, over HTTP: a 400 invalid_request_error with a precise message.
import { strict as assert } from 'node:assert';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { thinkingSignature } from '../fakes/ids';
import { TEST_KEY, assistant, post, requestBody, text, user } from '../fakes/testHttp';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `The ${name} tool`, input_schema: { type: 'object' }, ...extra });
const use = (id: string, name = 'read_file') => ({ type: 'tool_use', id, name, input: {} });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const tools = [tool('read_file')];
const cc = (ttl?: '5m' | '1h') => ({ type: 'ephemeral' as const, ...(ttl ? { ttl } : {}) });
const thought = (thinking: string) => ({ type: 'thinking', thinking, signature: thinkingSignature(thinking) });

interface Case { name: string; body: unknown; message: string | RegExp; headers?: Record<string, string | undefined>; raw?: string }

const rejected: Case[] = [
  { name: 'a missing anthropic-version header', body: requestBody([user(text('hi'))]), headers: { 'anthropic-version': undefined }, message: 'anthropic-version: header is required' },
  { name: 'a body that is not JSON', body: undefined, raw: '{"model":', message: /not valid JSON/ },
  { name: 'a missing model', body: { max_tokens: 10, messages: [user(text('hi'))] }, message: 'model: Field required' },
  { name: 'a non-string model', body: requestBody([user(text('hi'))], { model: 42 }), message: 'model: Input should be a valid string' },
  { name: 'a missing max_tokens', body: { model: 'm', messages: [user(text('hi'))] }, message: 'max_tokens: Field required' },
  { name: 'a zero max_tokens', body: requestBody([user(text('hi'))], { max_tokens: 0 }), message: 'max_tokens: Input should be greater than or equal to 1' },
  { name: 'a fractional max_tokens', body: requestBody([user(text('hi'))], { max_tokens: 1.5 }), message: 'max_tokens: Input should be a valid integer' },
  { name: 'missing messages', body: { model: 'm', max_tokens: 10 }, message: 'messages: Field required' },
  { name: 'empty messages', body: requestBody([]), message: 'messages: List should have at least 1 item after validation, not 0' },
  { name: 'an unknown top-level field', body: requestBody([user(text('hi'))], { temprature: 1 }), message: 'temprature: Extra inputs are not permitted' },
  { name: 'an unknown role', body: requestBody([{ role: 'system', content: 'x' }]), message: "messages.0.role: Input should be 'user' or 'assistant'" },
  { name: 'a first assistant message', body: requestBody([assistant(text('hi')), user(text('hi'))]), message: 'messages: first message must use the "user" role' },
  { name: 'a final assistant message (prefill)', body: requestBody([user(text('hi')), assistant(text('Sure'))]), message: /final message must use the "user" role/ },
  { name: 'an empty text block', body: requestBody([user(text(''))]), message: 'messages.0.content.0: text content blocks must be non-empty' },
  { name: 'a whitespace-only text block', body: requestBody([user(text('  \n'))]), message: 'messages.0.content.0: text content blocks must contain non-whitespace text' },
  { name: 'empty string content', body: requestBody([{ role: 'user', content: '' }]), message: 'messages.0: all messages must have non-empty content' },
  { name: 'an unknown block type', body: requestBody([user({ type: 'video', url: 'x' })]), message: /messages\.0\.content\.0: Input tag 'video' found using 'type'/ },
  { name: 'a text block without text', body: requestBody([user({ type: 'text' })]), message: 'messages.0.content.0.text: Field required' },
  { name: 'an unknown field in a block', body: requestBody([user({ type: 'text', text: 'x', extra: 1 })]), message: 'messages.0.content.0.extra: Extra inputs are not permitted' },
  { name: 'a tool_use block in a user message', body: requestBody([user(use('toolu_1'))], { tools }), message: 'messages.0.content.0: `tool_use` blocks may only appear in assistant messages' },
  { name: 'a tool_result block in an assistant message', body: requestBody([user(text('a')), assistant(result('toolu_1')), user(text('b'))], { tools }), message: /`tool_result` blocks may only appear in user messages/ },
  {
    name: 'a tool_use left unanswered by the next message',
    body: requestBody([user(text('go')), assistant(use('toolu_1'), use('toolu_2')), user(result('toolu_1'))], { tools }),
    message: 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
  },
  {
    name: 'a tool_result that comes a turn too late',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(text('wait')), assistant(text('ok')), user(result('toolu_1'))], { tools }),
    message: /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
  },
  {
    name: 'a tool_result after text in its message',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(text('here you go'), result('toolu_1'))], { tools }),
    message: 'messages.2.content.1: `tool_result` blocks must come before any other content in the user message',
  },
  {
    name: 'a tool_result for an unknown id',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(result('toolu_1'), result('toolu_9'))], { tools }),
    message: /^messages\.2\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9/,
  },
  { name: 'a tool_result in the first message', body: requestBody([user(result('toolu_1'))], { tools }), message: /unexpected `tool_use_id` found in `tool_result` blocks: toolu_1/ },
  {
    name: 'tool blocks without tools defined',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(result('toolu_1'))]),
    message: 'Requests which include `tool_use` or `tool_result` blocks must define tools.',
  },
  {
    name: 'a repeated tool_use id',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(result('toolu_1')), assistant(use('toolu_1')), user(result('toolu_1'))], { tools }),
    message: 'messages.3.content.0: `tool_use` ids must be unique: toolu_1',
  },
  { name: 'a numeric system', body: requestBody([user(text('hi'))], { system: 7 }), message: 'system: Input should be a valid string or a list of text blocks' },
  { name: 'a non-text system block', body: requestBody([user(text('hi'))], { system: [{ type: 'image', source: {} }] }), message: /^system\.0: system blocks must be text blocks/ },
  { name: 'an empty system text block', body: requestBody([user(text('hi'))], { system: [text('')] }), message: 'system.0: text content blocks must be non-empty' },
  { name: 'a bad tool name', body: requestBody([user(text('hi'))], { tools: [tool('read file')] }), message: "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'" },
  { name: 'a tool name over 64 characters', body: requestBody([user(text('hi'))], { tools: [tool('x'.repeat(65))] }), message: /^tools\.0\.name: String should match pattern/ },
  { name: 'a tool without a description', body: requestBody([user(text('hi'))], { tools: [{ name: 't', input_schema: { type: 'object' } }] }), message: 'tools.0.description: Field required' },
  { name: 'a tool without input_schema', body: requestBody([user(text('hi'))], { tools: [{ name: 't', description: 'd' }] }), message: 'tools.0.input_schema: Field required' },
  { name: 'a tool schema that is not an object', body: requestBody([user(text('hi'))], { tools: [tool('t', { input_schema: { type: 'string' } })] }), message: "tools.0.input_schema.type: Input should be 'object'" },
  { name: 'duplicate tool names', body: requestBody([user(text('hi'))], { tools: [tool('t'), tool('t')] }), message: 'tools: Tool names must be unique.' },
  {
    name: 'five cache_control blocks',
    body: requestBody([user(text('a', cc()), text('b', cc()), text('c', cc()))], { tools: [tool('t', { cache_control: cc() })], system: [text('s', cc())] }),
    message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
  },
  { name: 'an unknown ttl', body: requestBody([user(text('a', { type: 'ephemeral', ttl: '10m' } as never))]), message: "messages.0.content.0.cache_control.ttl: Input should be '5m' or '1h'" },
  { name: 'a cache_control type other than ephemeral', body: requestBody([user({ type: 'text', text: 'a', cache_control: { type: 'persistent' } })]), message: "messages.0.content.0.cache_control.type: Input should be 'ephemeral'" },
  {
    name: 'a 1h breakpoint after a 5m one',
    body: requestBody([user(text('a', cc('1h')))], { system: [text('s', cc())] }),
    message: /^messages\.0\.content\.0\.cache_control: a cache_control block with ttl='1h' must not come after one with ttl='5m' \(system\.0\)/,
  },
  { name: 'a thinking budget under 1024', body: requestBody([user(text('hi'))], { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1000 } }), message: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024' },
  { name: 'a thinking budget not under max_tokens', body: requestBody([user(text('hi'))], { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } }), message: /^`max_tokens` must be greater than `thinking.budget_tokens`/ },
  { name: 'an unknown thinking type', body: requestBody([user(text('hi'))], { thinking: { type: 'on' } }), message: "thinking.type: Input should be 'enabled' or 'disabled'" },
  {
    name: 'a continued assistant turn without its thinking block',
    body: requestBody([user(text('go')), assistant(use('toolu_1')), user(result('toolu_1'))], { tools, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    message: /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
  },
  {
    name: 'an altered thinking block',
    body: requestBody([user(text('go')), assistant({ ...thought('plan A'), thinking: 'plan B' }, use('toolu_1')), user(result('toolu_1'))], { tools }),
    message: 'messages.1.content.0: Invalid `signature` in `thinking` block (pass thinking blocks back exactly as the server sent them)',
  },
  {
    name: 'cache_control on a thinking block',
    body: requestBody([user(text('go')), assistant({ ...thought('x'), cache_control: cc() }, use('toolu_1')), user(result('toolu_1'))], { tools }),
    message: 'messages.1.content.0: cache_control cannot be set directly on thinking blocks',
  },
  { name: 'a tool_choice for a missing tool', body: requestBody([user(text('hi'))], { tools, tool_choice: { type: 'tool', name: 'nope' } }), message: "tool_choice.tool.name: Tool 'nope' not found in provided tools" },
  // https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting (read 2026-12-02): "Claude Opus
  // 4.7, Claude Opus 4.8, Claude Sonnet 5, Claude Fable 5, and Claude Mythos 5 do not support [extended thinking]
  // and reject requests that use it, returning a 400 error"; the message as whats-new-opus-5-5 quotes it.
  ...['claude-opus-4-7', 'claude-opus-4-8', 'claude-sonnet-5', 'claude-opus-5', 'claude-fable-5', 'claude-fable-5-2', 'claude-mythos-5-1'].map(model => ({
    name: `a thinking budget on ${model}`,
    body: requestBody([user(text('hi'))], { model, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    message: /^"thinking\.type\.enabled" is not supported for this model\./,
  })),
  { name: 'disabled thinking on Fable 5.1 (always on)', body: requestBody([user(text('hi'))], { model: 'claude-fable-5-1', thinking: { type: 'disabled' } }), message: /^"thinking\.type\.disabled" is not supported/ },
  {
    name: 'disabled thinking on Opus 5 above effort high (whats-new-opus-5)',
    body: requestBody([user(text('hi'))], { model: 'claude-opus-5', thinking: { type: 'disabled' }, output_config: { effort: 'max' } }),
    message: /only at output_config\.effort "high" or lower/,
  },
  // Automatic caching's edge cases (prompt-caching, "Edge cases", verbatim copies of 2026-07 to 2026-10, read 2026-12-02).
  {
    name: 'automatic caching with 4 explicit breakpoints already ("no slots left for automatic caching")',
    body: requestBody([user(text('a', cc()), text('b', cc()), text('c', cc()), text('d', cc()), text('e'))], { cache_control: cc() }),
    message: /^cache_control: automatic caching needs a free breakpoint/,
  },
  {
    name: 'automatic caching whose last block has its own cache_control with a different TTL',
    body: requestBody([user(text('a', cc('5m')))], { cache_control: cc('1h') }),
    message: /^cache_control: the last block \(messages\.0\.content\.0\) has its own cache_control with ttl='5m'/,
  },
  { name: 'a non-default temperature on Opus 4.8', body: requestBody([user(text('hi'))], { model: 'claude-opus-4-8', temperature: 0.2 }), message: 'temperature: only the default value 1 is supported for this model.' },
];

const accepted: { name: string; body: unknown }[] = [
  { name: 'consecutive user messages (merged, as the API does)', body: requestBody([user(text('a')), user(text('b'))]) },
  { name: 'string content and a string system', body: requestBody([{ role: 'user', content: 'hi' }], { system: 'Be brief.' }) },
  {
    name: 'a full tool round trip with results first, then text, and four breakpoints 1h before 5m',
    body: requestBody(
      [user(text('go')), assistant(text('calling'), use('toolu_1'), use('toolu_2')), user(result('toolu_2'), { ...result('toolu_1'), cache_control: cc() }, text('and also this', cc()))],
      { tools: [tool('read_file', { cache_control: cc('1h') })], system: [text('sys', cc('1h'))] },
    ),
  },
  { name: 'automatic caching (a top-level cache_control)', body: requestBody([user(text('a'))], { cache_control: cc('1h'), system: [text('sys', cc('1h'))] }) },
  { name: 'automatic caching whose last block already has the same TTL (a no-op)', body: requestBody([user(text('a', cc()), text('b'), text('c'), text('d', cc()))], { cache_control: cc(), system: [text('s', cc())], tools: [tool('t', { cache_control: cc() })] }) },
  // Still accepted: budgets on the 4.6 models (deprecated, "it still works there") and Haiku 4.5, disabled
  // thinking on Opus 4.8 / Sonnet 5 and on Opus 5 at effort high (thinking-troubleshooting, whats-new-opus-5).
  ...['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-haiku-4-5'].map(model => ({
    name: `a thinking budget on ${model}`,
    body: requestBody([user(text('hi'))], { model, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }),
  })),
  ...['claude-opus-4-8', 'claude-sonnet-5', 'claude-opus-5'].map(model => ({
    name: `disabled thinking on ${model}`,
    body: requestBody([user(text('hi'))], { model, thinking: { type: 'disabled' }, output_config: { effort: 'high' } }),
  })),
  {
    name: 'thinking kept on the continued turn',
    body: requestBody([user(text('go')), assistant(thought('hmm'), use('toolu_1')), user(result('toolu_1'))], { tools, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }),
  },
];

describe('fake Anthropic server validation', () => {
  let server: FakeAnthropic;
  before(async () => {
    server = await startFakeAnthropic({ apiKey: TEST_KEY, responder: () => ({ content: [{ type: 'text', text: 'ok' }] }) });
  });
  after(() => server.close());

  for (const c of rejected) {
    it(`rejects ${c.name}`, async () => {
      server.enqueue({ content: [{ type: 'text', text: 'must not be consumed' }] });
      const queued = server.pending();
      const response = await post(server, c.body, { headers: c.headers, raw: c.raw });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.json.type, 'error');
      assert.equal(response.json.error.type, 'invalid_request_error');
      if (typeof c.message === 'string') assert.equal(response.json.error.message, c.message);
      else assert.match(response.json.error.message, c.message);
      const record = server.requests[server.requests.length - 1];
      assert.equal(record.outcome, 'rejected');
      assert.equal(record.error, response.json.error.message);
      assert.equal(server.pending(), queued, 'a rejected request consumes no scripted turn');
    });
  }

  for (const c of accepted) {
    it(`accepts ${c.name}`, async () => {
      // Drain the turns the rejection tests left, so this answer comes from the responder.
      while (server.pending() > 0) await post(server, requestBody([user(text('drain'))]));
      const response = await post(server, c.body);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.content.at(-1).text, 'ok');
    });
  }
});
