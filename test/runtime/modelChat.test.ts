// model/chat: the Chat view's language-model requests go through the runtime's one client — cache
// breakpoints from request.ts, the turns' retry loop with the SDK's retry rules, the configured key.
import * as assert from 'node:assert/strict';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { modelCancel, modelChat, modelList, modelPart } from '../../src/common/protocol/model';
import type { ModelChatParams, ModelPartParams } from '../../src/common/protocol/model';
import { RuntimeErrorCode } from '../../src/common/protocol/runtime';
import { startHarness, useSharedHarness } from './harness';
import { say } from './script';

const LONG_SYSTEM = 'You answer questions about the workspace. '.repeat(120);

describe('runtime: model/chat (the Chat view provider)', function () {
  this.timeout(30_000);
  const h = useSharedHarness({ fake: { minCacheTokens: 256 } });
  let parts: ModelPartParams[];

  beforeEach(async () => {
    parts = [];
    onNotification(h.client.endpoint, modelPart, params => parts.push(params));
  });

  const chat = (params: Partial<ModelChatParams> & { requestId: string }) =>
    sendRequest(h.client.endpoint, modelChat, {
      model: 'claude-haiku-4-5', maxTokens: 1024, system: LONG_SYSTEM,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is here?' }] }],
      ...params,
    });

  it('streams text, returns tool calls, sends cache_control and reads the cache on the next request', async () => {
    h.fake.enqueue({ content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', name: 'list', input: { dir: '.' } }] });
    const tools = [{ name: 'list', description: 'List a folder', input_schema: { type: 'object' as const, properties: { dir: { type: 'string' } } } }];
    const first = await chat({ requestId: 'r1', tools, toolChoice: 'any' });
    assert.equal(first.stopReason, 'tool_use');
    const use = first.message!.content.find(b => b.type === 'tool_use');
    assert.ok(use && use.type === 'tool_use' && use.name === 'list');
    assert.equal(parts.filter(p => p.requestId === 'r1' && p.part.type === 'text').map(p => (p.part as { text: string }).text).join(''), 'Let me look.');

    const sent = h.fake.requests[0];
    assert.ok([sent.headers['x-api-key'], sent.headers.authorization].some(v => v === 'sk-ant-test-key' || v === 'Bearer sk-ant-test-key'), 'the key the client configured');
    assert.deepEqual(sent.body.system[0].cache_control, { type: 'ephemeral' });
    assert.deepEqual(sent.body.tool_choice, { type: 'any' });
    assert.deepEqual(sent.body.tools, tools);
    assert.deepEqual(sent.body.messages.at(-1).content.at(-1).cache_control, { type: 'ephemeral' });
    assert.ok(sent.usage!.cache_creation_input_tokens > 0);

    h.fake.enqueue(say('A single file.'));
    const second = await chat({
      requestId: 'r2', tools,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is here?' }] },
        { role: 'assistant', content: first.message!.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: (use as { id: string }).id, content: 'a.txt' }] },
      ],
    });
    assert.equal(second.stopReason, 'end_turn');
    const next = h.fake.requests[1];
    assert.deepEqual(next.body.messages[0].content.at(-1).cache_control, { type: 'ephemeral' }, 'the previous request\'s end stays a breakpoint');
    assert.ok(next.usage!.cache_read_input_tokens > 0, 'the second request reads what the first wrote');
  });

  it('required tool mode on a model that refuses a forced tool choice: sent as auto with an instruction, and said so', async () => {
    const tools = [{ name: 'list', description: 'List a folder', input_schema: { type: 'object' as const, properties: { dir: { type: 'string' } } } }];
    h.fake.enqueue({ content: [{ type: 'tool_use', name: 'list', input: { dir: '.' } }] }, say('no tool this time'));
    const result = await chat({ requestId: 'req5', model: 'claude-sonnet-5-5', tools, toolChoice: 'any' });
    assert.equal(h.fake.requests[0].status, 200, h.fake.requests[0].error);
    assert.deepEqual(h.fake.requests[0].body.tool_choice, { type: 'auto' });
    assert.match(JSON.stringify(h.fake.requests[0].body.system), /Respond by calling one of the available tools/);
    assert.match(result.notice ?? '', /claude-sonnet-5-5 does not accept a forced tool choice/);
    assert.ok(result.message!.content.some(b => b.type === 'tool_use'));
    const none = await chat({ requestId: 'req6', model: 'claude-sonnet-5-5', tools, toolChoice: 'any' });
    assert.equal(none.stopReason, 'error');
    assert.match(none.error!.message, /answered without calling a tool/);
    h.fake.enqueue({ content: [{ type: 'tool_use', name: 'list', input: { dir: '.' } }] });
    const haiku = await chat({ requestId: 'req7', model: 'claude-haiku-5-5', tools, toolChoice: 'any' });
    assert.deepEqual(h.fake.requests[2].body.tool_choice, { type: 'any' }, 'Haiku 5.5 takes it');
    assert.equal(haiku.notice, undefined);
  });

  // VS Code's language-model requests often carry no system message: the body then has no `system` at all
  // (an empty text block is a 400), which the client's TTL rule once read as an array (an internal error).
  it('a request without a system prompt is sent without `system`, and answered', async () => {
    h.fake.enqueue(say('Hello.'));
    const answered = await chat({ requestId: 'r0', system: undefined });
    assert.equal(answered.error, undefined, JSON.stringify(answered.error));
    assert.equal(answered.stopReason, 'end_turn');
    assert.equal(h.fake.requests.length, 1);
    assert.equal(h.fake.requests[0].body.system, undefined);
    assert.deepEqual(h.fake.requests[0].body.messages.at(-1).content.at(-1).cache_control, { type: 'ephemeral' }, 'the messages carry the breakpoint');
  });

  it('retries a 429 with an HTTP-date retry-after and a 529 with retry-after-ms, then answers', async () => {
    const date = new Date(Date.now() + 1500).toUTCString();
    h.fake.enqueue(
      { fault: 'rate_limit', headers: { 'retry-after': date } },
      { fault: 'overloaded', headers: { 'retry-after-ms': '40', 'retry-after': '30' } },
      say('finally'),
    );
    const result = await chat({ requestId: 'r3' });
    assert.equal(result.error, undefined);
    assert.equal(result.message!.content[0].type, 'text');
    const retries = parts.filter(p => p.part.type === 'retry').map(p => p.part as { attempt: number; delayMs: number; error: { kind: string } });
    assert.deepEqual(retries.map(r => [r.attempt, r.error.kind]), [[1, 'rate_limit'], [2, 'overloaded']]);
    assert.ok(retries[0].delayMs > 0 && retries[0].delayMs <= 1500, `HTTP-date wait ${retries[0].delayMs}`);
    assert.equal(retries[1].delayMs, 40, 'retry-after-ms wins over retry-after');
    assert.equal(h.fake.requests.length, 3);
  });

  it('obeys x-should-retry on a 500: false stops the retries, true allows them', async () => {
    h.fake.enqueue({ fault: 'server_error', headers: { 'x-should-retry': 'false' } });
    const refused = await chat({ requestId: 'r4' });
    assert.equal(refused.error?.kind, 'server');
    assert.equal(h.fake.requests.length, 1, 'not retried');
    h.fake.enqueue({ fault: 'server_error', headers: { 'x-should-retry': 'true', 'retry-after-ms': '5' } }, say('ok'));
    const retried = await chat({ requestId: 'r5' });
    assert.equal(retried.error, undefined);
    assert.equal(h.fake.requests.length, 3);
  });

  it('cancels a running request, and refuses without a key', async () => {
    h.fake.enqueue({ fault: 'hang' });
    const pending = chat({ requestId: 'r6' });
    await new Promise<void>(resolve => { const off = h.fake.onRequest(() => { off(); resolve(); }); });
    assert.deepEqual(await sendRequest(h.client.endpoint, modelCancel, { requestId: 'r6' }), { cancelled: true });
    assert.equal((await pending).error?.kind, 'cancelled');
    await h.configure({ apiKey: '' });
    await assert.rejects(chat({ requestId: 'r7' }), (e: { code?: number }) => e.code === RuntimeErrorCode.missingKey);
  });
});

describe('runtime: model/list (the model picker)', function () {
  this.timeout(30_000);

  it('lists the endpoint\'s Claude models with their context windows', async () => {
    const h = await startHarness({ fake: { models: [
      { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', max_input_tokens: 1_000_000 },
      { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5' },
      { id: 'text-embedding-x', display_name: 'Not Claude' },
    ] } });
    try {
      const listed = await sendRequest(h.client.endpoint, modelList, {});
      assert.deepEqual(listed, { models: [
        { id: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5', contextWindow: 1_000_000 },
        { id: 'claude-haiku-4-5', name: 'Claude Haiku 4.5' },
      ] });
    } finally {
      await h.dispose();
    }
  });

  it('the fake lists today\'s models by default, the 5.5 family with its 1M context', async () => {
    const h = await startHarness();
    try {
      const listed = await sendRequest(h.client.endpoint, modelList, {});
      for (const id of ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5']) {
        assert.equal(listed.models.find(m => m.id === id)?.contextWindow, 1_000_000, id);
      }
    } finally {
      await h.dispose();
    }
  });

  it('says so when the endpoint has no models.list', async () => {
    const h = await startHarness({ fake: { models: 'none' } });
    try {
      const listed = await sendRequest(h.client.endpoint, modelList, {});
      assert.deepEqual(listed.models, []);
      assert.match(listed.error ?? '', /lists no models: 404/);
    } finally {
      await h.dispose();
    }
  });
});
