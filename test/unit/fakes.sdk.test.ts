// The fake server through the real @anthropic-ai/sdk over HTTP: streaming, non-streaming, tool and thinking
// round trips, count_tokens, and the SSE framing itself.
import { strict as assert } from 'node:assert';
import { Anthropic } from '@anthropic-ai/sdk';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { countInputTokens } from '../fakes/cache';
import { MODEL, TEST_KEY, nextRequest, post, requestBody, user, text } from '../fakes/testHttp';

describe('fake Anthropic server with the real SDK', () => {
  let server: FakeAnthropic;
  let client: Anthropic;

  beforeEach(async () => {
    server = await startFakeAnthropic({ apiKey: TEST_KEY });
    client = new Anthropic({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0 });
  });
  afterEach(() => server.close());

  it('streams a text turn that the SDK assembles into a final message', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'Hello from the fake model, streamed in several chunks.' }] });
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi there' }] });
    stream.on('text', delta => deltas.push(delta));
    const message = await stream.finalMessage();
    assert.equal(message.role, 'assistant');
    assert.equal(message.model, MODEL);
    assert.match(message.id, /^msg_/);
    assert.equal(message.stop_reason, 'end_turn');
    assert.deepEqual(message.content.map(b => b.type), ['text']);
    assert.equal((message.content[0] as Anthropic.TextBlock).text, 'Hello from the fake model, streamed in several chunks.');
    assert.ok(deltas.length > 1, 'text arrives in several deltas');
    const expectedOutput = Math.ceil('Hello from the fake model, streamed in several chunks.'.length / 4);
    assert.equal(message.usage.output_tokens, expectedOutput);
    assert.equal(message.usage.cache_read_input_tokens, 0);
    assert.equal(message.usage.cache_creation_input_tokens, 0);
    assert.equal(message.usage.input_tokens, countInputTokens(server.requests[0].body));
    assert.deepEqual(server.requests[0].usage, message.usage);
    assert.equal(server.requests[0].outcome, 'completed');
  });

  it('streams tool_use input as input_json_delta and accepts the SDK message back with a tool_result', async () => {
    const tools: Anthropic.Tool[] = [
      { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
    ];
    server.enqueue(
      { content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts', nested: { n: [1, 2, 3] } } }] },
      { content: [{ type: 'text', text: 'Done.' }] },
    );
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'read src/a.ts' }];
    const first = await client.messages.stream({ model: MODEL, max_tokens: 1024, tools, messages }).finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    const use = first.content[1] as Anthropic.ToolUseBlock;
    assert.equal(use.type, 'tool_use');
    assert.equal(use.id, 'toolu_1');
    assert.deepEqual(use.input, { path: 'src/a.ts', nested: { n: [1, 2, 3] } });
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'export const a = 1;' }] });
    const second = await client.messages.stream({ model: MODEL, max_tokens: 1024, tools, messages }).finalMessage();
    assert.equal((second.content[0] as Anthropic.TextBlock).text, 'Done.');
    assert.equal(server.requests[1].status, 200);
  });

  it('streams thinking with a signature that the server accepts back', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'list_files', description: 'List files', input_schema: { type: 'object' } }];
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    server.enqueue(
      { content: [{ type: 'thinking', thinking: 'I should list the files first.' }, { type: 'tool_use', name: 'list_files', input: {} }] },
      { content: [{ type: 'text', text: 'Two files.' }] },
    );
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'list' }];
    const first = await client.messages.stream({ model: MODEL, max_tokens: 4096, thinking, tools, messages }).finalMessage();
    const block = first.content[0] as Anthropic.ThinkingBlock;
    assert.equal(block.type, 'thinking');
    assert.equal(block.thinking, 'I should list the files first.');
    assert.ok(block.signature.length > 10);
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: (first.content[1] as Anthropic.ToolUseBlock).id, content: 'a\nb' }] });
    const second = await client.messages.stream({ model: MODEL, max_tokens: 4096, thinking, tools, messages }).finalMessage();
    // With thinking on, a turn scripted without thinking still opens with one, as a real model's would.
    assert.deepEqual(second.content.map(b => b.type), ['thinking', 'text']);
  });

  it('answers non-streaming requests with the same message as JSON', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'Plain JSON.' }], stop_reason: 'max_tokens' });
    const message = await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal((message.content[0] as Anthropic.TextBlock).text, 'Plain JSON.');
    assert.equal(message.stop_reason, 'max_tokens');
    assert.equal(message.usage.output_tokens, 3);
  });

  it('counts tokens with the same estimate the usage uses', async () => {
    const params = { model: MODEL, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How many tokens is this?' }] };
    const counted = await client.messages.countTokens(params);
    assert.equal(counted.input_tokens, countInputTokens(params));
    assert.equal(server.requests.length, 0, 'count_tokens calls are not message requests');
  });

  it('frames events exactly as event/data pairs in the real order', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'ab' }, { type: 'tool_use', id: 'toolu_x', name: 't', input: { q: 'v' } }] });
    const tools = [{ name: 't', description: 'd', input_schema: { type: 'object' } }];
    const result = await post(server, requestBody([user(text('go'))], { stream: true, tools }));
    assert.equal(result.status, 200);
    assert.match(result.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = result.text.split('\n\n').filter(f => f !== '');
    const events = frames.map(f => {
      const match = /^event: (\w+)\ndata: (.*)$/.exec(f);
      assert.ok(match, `frame is event/data: ${f}`);
      const data = JSON.parse(match[2]);
      assert.equal(data.type, match[1]);
      return data;
    });
    const types = events.map(e => (e.type === 'content_block_delta' ? `delta:${e.delta.type}` : e.type));
    assert.deepEqual(types, [
      'message_start', 'content_block_start', 'ping', 'delta:text_delta', 'content_block_stop',
      'content_block_start', 'delta:input_json_delta', 'delta:input_json_delta', 'delta:input_json_delta', 'delta:input_json_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    const start = events[0].message;
    assert.deepEqual(start.content, []);
    assert.equal(start.stop_reason, null);
    assert.deepEqual(Object.keys(start.usage).sort(), ['cache_creation_input_tokens', 'cache_read_input_tokens', 'input_tokens', 'output_tokens']);
    const json = events.filter(e => e.delta?.type === 'input_json_delta').map(e => e.delta.partial_json).join('');
    assert.deepEqual(JSON.parse(json), { q: 'v' });
    assert.equal(events[11].delta.stop_reason, 'tool_use');
  });

  it('takes the queue first, then the responder, and tells listeners about each request', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'queued' }] });
    server.setResponder(req => ({ content: [{ type: 'text', text: `echo ${req.body.messages.length}` }] }));
    const seen = nextRequest(server);
    const a = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    assert.equal((await seen).body.messages[0].content, 'x');
    const b = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'y' }] });
    assert.equal((a.content[0] as Anthropic.TextBlock).text, 'queued');
    assert.equal((b.content[0] as Anthropic.TextBlock).text, 'echo 1');
    assert.equal(server.requests[1].headers.authorization, `Bearer ${TEST_KEY}`, 'SDK 1.x sends the key as a bearer token');
    assert.equal(server.pending(), 0);
  });
});
