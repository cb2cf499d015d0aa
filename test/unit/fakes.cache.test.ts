// Prompt-cache simulation: prefix reads, minimum length, 20-block lookback, invalidation, TTLs, write
// visibility, and thinking blocks leaving the prefix (docs/design.md §4.5).
import { strict as assert } from 'node:assert';
import { Anthropic } from '@anthropic-ai/sdk';
import type { Usage } from '../../src/common/transcript';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, FakeAnthropicOptions } from '../fakes/anthropicServer';
import { countInputTokens, estimateTokens } from '../fakes/cache';
import { thinkingSignature } from '../fakes/ids';
import { MODEL, TEST_KEY, assistant, post, requestBody, text, user } from '../fakes/testHttp';

type Cc = { type: 'ephemeral'; ttl?: '5m' | '1h' };
const CC: Cc = { type: 'ephemeral' };
const BIG = 'Fork agents share the parent prefix. '.repeat(140); // ≈ 1300 tokens: above the 1024 minimum alone
const system = (cc?: Cc) => [text(BIG, cc)];
const SYSTEM_TOKENS = estimateTokens(text(BIG));
const tool = (description: string) => ({ name: 'read_file', description, input_schema: { type: 'object' } });
const blocks = (n: number, marked: number[] = []) => Array.from({ length: n }, (_, i) => text(`block ${i}`, marked.includes(i) ? CC : undefined));
const tokensOf = (...values: unknown[]) => values.reduce<number>((sum, v) => sum + estimateTokens(v), 0);

describe('fake Anthropic server prompt cache', () => {
  let server: FakeAnthropic;
  const start = async (options: FakeAnthropicOptions = {}) => {
    server = await startFakeAnthropic({ responder: () => ({ content: [{ type: 'text', text: 'ok' }] }), ...options });
  };
  const usageOf = async (body: Record<string, unknown>) => {
    const response = await post(server, body);
    assert.equal(response.status, 200, response.text);
    return response.json.usage as Usage;
  };
  afterEach(() => server.close());

  it('lets a request that extends the previous one read its prefix, wherever the breakpoint moved', async () => {
    await start();
    const u1 = text('first question');
    const first = await usageOf(requestBody([user({ ...u1, cache_control: CC })], { system: system(CC) }));
    assert.deepEqual(
      { read: first.cache_read_input_tokens, created: first.cache_creation_input_tokens, input: first.input_tokens },
      { read: 0, created: SYSTEM_TOKENS + tokensOf(u1), input: 0 },
    );
    const a1 = text('first answer');
    const u2 = text('second question');
    const body = requestBody([user(u1), assistant(a1), user({ ...u2, cache_control: CC })], { system: system(CC) });
    const second = await usageOf(body);
    assert.equal(second.cache_read_input_tokens, SYSTEM_TOKENS + tokensOf(u1));
    assert.equal(second.cache_creation_input_tokens, tokensOf(a1, u2));
    assert.equal(second.input_tokens, 0);
    assert.equal(second.cache_read_input_tokens + second.cache_creation_input_tokens + second.input_tokens, countInputTokens(body));
    assert.deepEqual(server.cacheStats(), { entries: 3, writes: 3, reads: 1 });
  });

  it('automatic caching (a top-level cache_control) caches up to the last block and moves forward with the conversation', async () => {
    // https://platform.claude.com/docs/en/build-with-claude/prompt-caching (read 2026-12-02): "The system
    // automatically applies the cache breakpoint to the last cacheable block and moves it forward as conversations grow."
    await start();
    const u1 = text('first question');
    const first = await usageOf(requestBody([user(u1)], { system: system(), cache_control: CC }));
    assert.equal(first.cache_creation_input_tokens, SYSTEM_TOKENS + tokensOf(u1));
    const a1 = text('first answer');
    const u2 = text('second question');
    const second = await usageOf(requestBody([user(u1), assistant(a1), user(u2)], { system: system(), cache_control: CC }));
    assert.equal(second.cache_read_input_tokens, SYSTEM_TOKENS + tokensOf(u1));
    assert.equal(second.cache_creation_input_tokens, tokensOf(a1, u2));
    assert.equal(second.input_tokens, 0);
  });

  it('caches nothing below the minimum length, silently', async () => {
    await start();
    const body = requestBody([user(text('short', CC))], { system: [text('tiny system', CC)] });
    for (let i = 0; i < 2; i++) {
      const usage = await usageOf(body);
      assert.equal(usage.cache_read_input_tokens, 0);
      assert.equal(usage.cache_creation_input_tokens, 0);
      assert.equal(usage.input_tokens, countInputTokens(body));
    }
    assert.equal(server.cacheStats().entries, 0);
  });

  it('uses each model\'s documented minimum: ~1,300 tokens cache on Sonnet 4.6 (1,024), not on Opus 4.7 (2,048) or Opus 4.6 (4,096)', async () => {
    // https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Cache limitations", as quoted
    // verbatim on 2026-07-28 and 2026-10-08 (read 2026-12-02); the fake had 2,048 and 4,096 from third-party copies.
    await start({ minCacheTokens: undefined });
    const cached = async (model: string) => (await usageOf(requestBody([user(text(`q ${model}`, CC))], { model, system: system() }))).cache_creation_input_tokens > 0;
    assert.ok(SYSTEM_TOKENS > 1024 && SYSTEM_TOKENS < 2048, String(SYSTEM_TOKENS));
    assert.deepEqual(
      await Promise.all(['claude-sonnet-4-6', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-haiku-4-5'].map(cached)),
      [true, true, false, false, false],
    );
  });

  it('counts only the part after the breakpoint as plain input', async () => {
    await start();
    const tail = text('not cached: after the last breakpoint');
    const usage = await usageOf(requestBody([user(text('q', CC), tail)], { system: system() }));
    assert.equal(usage.cache_creation_input_tokens, SYSTEM_TOKENS + tokensOf(text('q')));
    assert.equal(usage.input_tokens, tokensOf(tail));
  });

  it('looks back at most 20 blocks from a breakpoint, and an earlier breakpoint rescues a longer jump', async () => {
    await start();
    // Each probe starts from one entry ending at block 5 (system = block 0, then message blocks 0..4),
    // since probes write entries of their own.
    const probe = async (n: number, marked: number[]) => {
      server.clearCache();
      await usageOf(requestBody([user(...blocks(5, [4]))], { system: system() }));
      return (await usageOf(requestBody([user(...blocks(n, marked))], { system: system() }))).cache_read_input_tokens;
    };
    const cachedTokens = SYSTEM_TOKENS + tokensOf(...blocks(5));
    assert.equal(await probe(24, [23]), cachedTokens, '19 blocks after the entry: still found');
    assert.equal(await probe(25, [24]), 0, '20 blocks after the entry: missed');
    assert.equal(await probe(45, [44]), 0, 'far after the entry: missed');
    assert.equal(await probe(45, [14, 44]), cachedTokens, 'an extra breakpoint within reach rescues the read');
  });

  it('invalidates everything when a tool definition changes', async () => {
    await start();
    const messages = [user(text('question', CC))];
    await usageOf(requestBody(messages, { tools: [tool('Read a file.')], system: system(CC) }));
    const same = await usageOf(requestBody(messages, { tools: [tool('Read a file.')], system: system(CC) }));
    assert.equal(same.cache_creation_input_tokens, 0);
    const changed = await usageOf(requestBody(messages, { tools: [tool('Read a file, now differently.')], system: system(CC) }));
    assert.equal(changed.cache_read_input_tokens, 0);
    assert.equal(changed.input_tokens, 0);
    assert.equal(changed.cache_creation_input_tokens, countInputTokens(requestBody(messages, { tools: [tool('Read a file, now differently.')], system: system() })));
  });

  it('keeps tools and system but not the messages when tool_choice or effort changes', async () => {
    // prompt-caching, "What invalidates the cache" (its table as quoted 2026-10-02, read 2026-12-02): tool_choice
    // ✓ tools ✓ system ✘ messages; "thinking parameters, effort setting": messages ✘ (tools/system model-specific).
    await start();
    const body = (extra: Record<string, unknown>) => requestBody([user(text('question', CC))], { tools: [tool('Read a file.')], system: system(CC), ...extra });
    await usageOf(body({}));
    const prefix = countInputTokens(requestBody([], { tools: [tool('Read a file.')], system: system() }));
    for (const extra of [{ tool_choice: { type: 'any' } }, { output_config: { effort: 'low' } }]) {
      const changed = await usageOf(body(extra));
      assert.equal(changed.cache_read_input_tokens, prefix, JSON.stringify(extra));
      assert.ok(changed.cache_creation_input_tokens > 0, JSON.stringify(extra));
    }
  });

  it('treats a different TTL as a different entry', async () => {
    await start();
    const body = (ttl: '5m' | '1h') => requestBody([user(text('question', { type: 'ephemeral', ttl }))], { system: system() });
    await usageOf(body('1h'));
    assert.equal((await usageOf(body('5m'))).cache_read_input_tokens, 0);
    assert.equal((await usageOf(body('1h'))).cache_read_input_tokens, countInputTokens(body('1h')));
    assert.equal((await usageOf(body('5m'))).cache_read_input_tokens, countInputTokens(body('5m')));
  });

  it('expires entries after their TTL, refreshed by each read', async () => {
    let now = 1_000_000;
    await start({ now: () => now });
    const body = requestBody([user(text('question', CC))], { system: system() });
    await usageOf(body);
    now += 4 * 60_000;
    assert.ok((await usageOf(body)).cache_read_input_tokens > 0, 'read after 4 minutes, which refreshes it');
    now += 4 * 60_000;
    assert.ok((await usageOf(body)).cache_read_input_tokens > 0, '8 minutes after the write, 4 after the refresh');
    now += 5 * 60_000;
    assert.equal((await usageOf(body)).cache_read_input_tokens, 0, 'expired 5 minutes after the last read');
  });

  it('makes a write readable only once the writing response has started', async () => {
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>(resolve => (holding = resolve));
    let calls = 0;
    await start({
      responder: async () => {
        calls += 1;
        if (calls === 1) {
          holding();
          await gate;
        }
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    const body = requestBody([user(text('same prompt for both forks', CC))], { system: system() });
    const first = post(server, body);
    await held;
    const second = await usageOf(body);
    assert.equal(second.cache_read_input_tokens, 0, 'the first response has not started: the sibling pays the write too');
    release();
    assert.equal((await first).json.usage.cache_read_input_tokens, 0);
    assert.equal((await usageOf(body)).cache_read_input_tokens, countInputTokens(body));
  });

  it('thinking follows the documented rule: stripped by any non-tool-result user block on older models, kept on newer ones', async () => {
    await start({ minCacheTokens: 64 });
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    const thought = (t: string) => ({ type: 'thinking', thinking: t, signature: thinkingSignature(t) });
    const use = (id: string) => ({ type: 'tool_use', id, name: 'read_file', input: { path: 'a' } });
    const result = (id: string, cc?: Cc) => ({ type: 'tool_result', tool_use_id: id, content: 'contents', ...(cc ? { cache_control: cc } : {}) });
    for (const [model, strips] of [['claude-haiku-4-5', true], ['claude-sonnet-4-6', false], ['claude-opus-4-5', false]] as const) {
      server.clearCache();
      const options = { model, system: system(), tools: [tool('Read a file.')], thinking, max_tokens: 4096 };
      const head = [user(text('read a')), assistant(thought('I will read a.'), use('toolu_a'))];
      const firstBody = requestBody([...head, user(result('toolu_a', CC))], options);
      await usageOf(firstBody);
      const cached = countInputTokens(firstBody);
      const results = await usageOf(requestBody([...head, user(result('toolu_a')), assistant(thought('next'), use('toolu_b')), user(result('toolu_b', CC))], options));
      assert.equal(results.cache_read_input_tokens, cached, `${model}: tool results alone keep the thinking in the prefix`);
      const directive = await usageOf(requestBody([...head, user(result('toolu_a')), assistant(thought('next'), use('toolu_b')), user(result('toolu_b'), text('directive', CC))], options));
      if (strips) assert.equal(directive.cache_read_input_tokens, 0, `${model}: a text block beside tool results strips the earlier thinking, so the prefix differs`);
      else assert.ok(directive.cache_read_input_tokens >= cached, `${model}: earlier thinking is preserved, the prefix is read`);
    }
  });

  it('reports cache usage in message_start for SDK streams', async () => {
    await start({ apiKey: TEST_KEY });
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0 });
    const params: Anthropic.MessageCreateParams = {
      model: MODEL,
      max_tokens: 1024,
      system: [{ type: 'text', text: BIG, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hello' }],
    };
    const first = await client.messages.stream(params).finalMessage();
    assert.equal(first.usage.cache_creation_input_tokens, SYSTEM_TOKENS);
    let startUsage: Anthropic.Usage | undefined;
    const stream = client.messages.stream(params);
    stream.on('streamEvent', event => {
      if (event.type === 'message_start') startUsage = event.message.usage;
    });
    const second = await stream.finalMessage();
    assert.equal(startUsage?.cache_read_input_tokens, SYSTEM_TOKENS);
    assert.equal(second.usage.cache_read_input_tokens, SYSTEM_TOKENS);
    assert.equal(second.usage.input_tokens, estimateTokens({ type: 'text', text: 'hello' }));
  });
});
