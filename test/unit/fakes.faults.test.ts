// Fault injection and authentication, seen through the real SDK (with its own retries) and raw HTTP.
import { strict as assert } from 'node:assert';
import { Anthropic } from '@anthropic-ai/sdk';
import { NO_TURN_MESSAGE, startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, FakeAnthropicOptions } from '../fakes/anthropicServer';
import { MODEL, TEST_KEY, nextRequest, nextResponse, post, requestBody, text, user } from '../fakes/testHttp';

const params = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hello' }] };
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(10);

describe('fake Anthropic server faults', () => {
  let server: FakeAnthropic;
  const start = async (options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> => {
    server = await startFakeAnthropic({ apiKey: TEST_KEY, ...options });
    return server;
  };
  const sdk = (maxRetries: number, apiKey = TEST_KEY): Anthropic => new Anthropic({ apiKey, baseURL: server.url, maxRetries });
  afterEach(() => server.close());

  it('answers 429 with retry-after, which the SDK honours before retrying', async () => {
    await start();
    server.enqueue({ fault: 'rate_limit', retryAfterSeconds: 0.01 }, { content: [{ type: 'text', text: 'after the retry' }] });
    const message = await sdk(2).messages.create(params);
    assert.equal((message.content[0] as Anthropic.TextBlock).text, 'after the retry');
    assert.deepEqual(server.requests.map(r => r.status), [429, 200]);
    assert.deepEqual(server.requests.map(r => r.outcome), ['fault', 'completed']);
    assert.equal(server.requests[1].headers['x-stainless-retry-count'], '1');
  });

  it('answers 529 overloaded and 429 with the real error bodies and headers', async () => {
    await start();
    server.enqueue({ fault: 'overloaded', retryAfterSeconds: 2 }, { fault: 'rate_limit' });
    const overloaded = await post(server, requestBody([user(text('hi'))]), { headers: { 'x-api-key': TEST_KEY } });
    assert.equal(overloaded.status, 529);
    assert.equal(overloaded.headers.get('retry-after'), '2');
    // The documented shape (https://platform.claude.com/docs/en/api/errors, "Error shapes", read 2026-12-02):
    // request_id beside the error object, the same id as the request-id header.
    assert.deepEqual(overloaded.json, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: overloaded.headers.get('request-id') });
    const limited = await post(server, requestBody([user(text('hi'))]));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), null);
    assert.equal(limited.json.error.type, 'rate_limit_error');
  });

  it('answers 413 request_too_large over 32 MB, before checking anything else (api/errors, "Request size limits", read 2026-12-02)', async () => {
    await start();
    const big = await post(server, requestBody([user(text('x'.repeat(33 * 1024 * 1024)))]), { headers: { 'x-api-key': undefined } });
    assert.equal(big.status, 413);
    assert.equal(big.json.error.type, 'request_too_large');
    assert.equal(big.json.request_id, big.headers.get('request-id'));
    await assert.rejects(sdk(0).messages.create({ ...params, messages: [{ role: 'user', content: 'y'.repeat(33 * 1024 * 1024) }] }), (err: unknown) => err instanceof Anthropic.APIError && err.status === 413);
  });

  it('surfaces 529 and 500 as SDK errors when retries are off', async () => {
    await start();
    server.enqueue({ fault: 'overloaded' }, { fault: 'server_error' });
    await assert.rejects(sdk(0).messages.create(params), (err: unknown) => err instanceof Anthropic.APIError && err.status === 529);
    await assert.rejects(sdk(0).messages.create(params), (err: unknown) => err instanceof Anthropic.InternalServerError);
  });

  it('answers 401 for the unauthorized fault, a wrong key and a missing key; the SDK does not retry them', async () => {
    await start();
    server.enqueue({ fault: 'unauthorized' });
    await assert.rejects(sdk(2).messages.create(params), Anthropic.AuthenticationError);
    assert.equal(server.requests.length, 1);
    await assert.rejects(sdk(2, 'sk-wrong').messages.create(params), /invalid x-api-key/);
    const missing = await post(server, requestBody([user(text('hi'))]), { headers: { 'x-api-key': undefined } });
    assert.equal(missing.status, 401);
    assert.equal(missing.json.error.type, 'authentication_error');
    assert.match(missing.json.error.message, /x-api-key header is required/);
    server.setApiKey(undefined);
    server.enqueue({ content: [{ type: 'text', text: 'any key will do' }] });
    const anyKey = await sdk(0, 'sk-anything').messages.create(params);
    assert.equal((anyKey.content[0] as Anthropic.TextBlock).text, 'any key will do');
  });

  it('cuts a stream mid-message after the requested number of characters', async () => {
    await start();
    server.enqueue({ fault: 'cut_stream', afterTextChars: 10 });
    let received = '';
    const stream = sdk(0).messages.stream(params);
    stream.on('text', delta => (received += delta));
    await assert.rejects(stream.finalMessage());
    assert.equal(received.length, 10);
    assert.equal(server.requests[0].outcome, 'cut');
    assert.ok(server.requests[0].usage, 'the response had started, so usage was reported');
  });

  it('drops a non-streaming request with cut_stream as a connection error', async () => {
    await start();
    server.enqueue({ fault: 'cut_stream' });
    await assert.rejects(sdk(0).messages.create(params), Anthropic.APIConnectionError);
  });

  it('hangs until the client aborts', async () => {
    await start();
    server.enqueue({ fault: 'hang' });
    const controller = new AbortController();
    const arrived = nextRequest(server);
    const ended = nextResponse(server);
    const pending = sdk(0).messages.create(params, { signal: controller.signal });
    await arrived;
    controller.abort();
    await assert.rejects(pending, Anthropic.APIUserAbortError);
    assert.equal((await ended).outcome, 'aborted');
  });

  it('lets close() end a hanging exchange', async () => {
    await start();
    server.enqueue({ fault: 'hang' });
    const arrived = nextRequest(server);
    const pending = sdk(0).messages.create(params);
    await arrived;
    await server.close();
    await assert.rejects(pending, Anthropic.APIConnectionError);
  });

  it('spaces events with streamDelayMs so a client can cancel mid-stream', async () => {
    await start({ streamDelayMs: 5 });
    server.enqueue({ content: [{ type: 'text', text: LONG_TEXT }] });
    const ended = nextResponse(server);
    const stream = sdk(0).messages.stream(params);
    let received = '';
    stream.on('text', delta => {
      received += delta;
      stream.abort();
    });
    await assert.rejects(stream.finalMessage(), Anthropic.APIUserAbortError);
    const record = await ended;
    assert.equal(record.outcome, 'aborted');
    assert.ok(received.length < LONG_TEXT.length);
  });

  it('answers 500 without inviting a retry when no scripted turn is left', async () => {
    await start();
    await assert.rejects(sdk(2).messages.create(params), (err: unknown) => {
      assert.ok(err instanceof Anthropic.InternalServerError);
      assert.match(err.message, new RegExp(NO_TURN_MESSAGE));
      return true;
    });
    assert.equal(server.requests.length, 1, 'x-should-retry: false stops the SDK retrying');
  });

  it('turns a throwing responder into a clear 500', async () => {
    await start({ responder: () => { throw new Error('responder exploded'); } });
    const result = await post(server, requestBody([user(text('hi'))]));
    assert.equal(result.status, 500);
    assert.equal(result.headers.get('x-should-retry'), 'false');
    assert.match(result.json.error.message, /responder exploded/);
  });

  it('answers unknown routes with 404 not_found_error', async () => {
    await start();
    const result = await post(server, {}, { path: '/v1/complete' });
    assert.equal(result.status, 404);
    assert.equal(result.json.error.type, 'not_found_error');
  });
});
