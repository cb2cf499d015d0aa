// Amazon Bedrock through the real @anthropic-ai/bedrock-sdk (SigV4 from the AWS credential chain) against
// the fake's invoke-with-response-stream route in AWS event-stream framing: streaming, tool use, cache
// usage, a 429 with retry-after — the same ModelClient as the Anthropic API.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE', AWS_SECRET_ACCESS_KEY: 'fake-secret', AWS_REGION: 'us-west-2' };

describe('runtime: Bedrock provider (real bedrock-sdk)', function () {
  this.timeout(30_000);
  let h: Harness;
  const saved: Record<string, string | undefined> = {};

  beforeEach(async () => {
    // The runtime process inherits these: the AWS credential chain reads them.
    for (const [k, v] of Object.entries(AWS_ENV)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    h = await startHarness({ fake: { minCacheTokens: 256 } });
    await h.configure({ apiKey: '', provider: 'bedrock', bedrock: { region: 'us-west-2', baseUrl: h.fake.url } });
  });
  afterEach(async () => {
    await h.dispose();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('streams a tool-using turn as AWS event-stream chunks with the mapped model id, caches, and retries a 429', async () => {
    fs.writeFileSync(path.join(h.root, 'b.txt'), 'beta\n');
    h.fake.enqueue({ fault: 'rate_limit', retryAfterSeconds: 0.02 }, call(['read_file', { path: 'b.txt' }]), say('It says beta.'));
    const result = await h.send('read b.txt', { model: 'claude-sonnet-4-5' });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.equal(result.text, 'It says beta.');
    const [limited, first, second] = h.fake.requests;
    assert.equal(limited.status, 429);
    for (const r of [first, second]) {
      assert.equal(r.wire, 'bedrock');
      assert.equal(r.body.model, 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'the Bedrock model id');
      assert.match(String(r.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE\/\d+\/us-west-2\/bedrock\/aws4_request/);
    }
    assert.ok(second.usage!.cache_read_input_tokens > 0, 'the second request reads the first one\'s cache');
    const usage = h.events.filter(e => e.event.type === 'usage').map(e => e.event).at(-1)!;
    assert.ok(usage.type === 'usage' && usage.usage.cache_read_input_tokens > 0, 'cache figures reach the runtime through the event stream');
    const retry = h.events.find(e => e.event.type === 'retry')!.event;
    assert.ok(retry.type === 'retry' && retry.error.kind === 'rate_limit' && retry.delayMs === 20);
  });

  it('sends an id it does not know (an inference profile) unchanged, and maps a dated Anthropic id', async () => {
    h.fake.enqueue(say('profile'), say('dated'));
    await h.send('hello', { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' });
    await h.send('hello again', { model: 'claude-haiku-4-5-20251001' });
    assert.deepEqual(h.fake.requests.map(r => [r.wire, r.body.model]), [
      ['bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'], ['bedrock', 'anthropic.claude-haiku-4-5-20251001-v1:0'],
    ]);
  });
});
