// Google Vertex AI through the real @anthropic-ai/vertex-sdk against the fake's streamRawPredict route:
// streaming, tool use, cache usage, a 429 with retry-after — the same ModelClient as the Anthropic API.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useSharedHarness } from './harness';
import { call, say } from './script';

describe('runtime: Vertex AI provider (real vertex-sdk)', function () {
  this.timeout(30_000);
  const h = useSharedHarness({ fake: { minCacheTokens: 256 } });

  beforeEach(async () => {
    await h.configure({ apiKey: '', provider: 'vertex', vertex: { projectId: 'my-proj', region: 'us-east5', accessToken: 'ya29.test-token', baseUrl: `${h.fake.url}/v1` } });
  });

  it('streams a tool-using turn over streamRawPredict with the mapped model id, caches, and retries a 429', async () => {
    fs.writeFileSync(path.join(h.root, 'a.txt'), 'alpha\n');
    h.fake.enqueue({ fault: 'rate_limit', retryAfterSeconds: 0.02 }, call(['read_file', { path: 'a.txt' }]), say('It says alpha.'));
    const result = await h.send('read a.txt', { model: 'claude-sonnet-4-5' });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.equal(result.text, 'It says alpha.');
    const [limited, first, second] = h.fake.requests;
    assert.equal(limited.status, 429);
    for (const r of [first, second]) {
      assert.equal(r.wire, 'vertex');
      assert.equal(typeof r.vertexVersion, 'string', 'anthropic_version in the body');
      assert.equal(r.headers['anthropic-version'], undefined, 'not as a header');
      assert.equal(r.body.model, 'claude-sonnet-4-5@20250929', 'the Vertex model id');
      assert.equal(r.headers.authorization, 'Bearer ya29.test-token');
      assert.equal(r.body.stream, true);
    }
    assert.ok(second.usage!.cache_read_input_tokens > 0, 'the second request reads the first one\'s cache');
    const retry = h.events.find(e => e.event.type === 'retry')!.event;
    assert.ok(retry.type === 'retry' && retry.error.kind === 'rate_limit' && retry.delayMs === 20);
    const { header } = await h.transcript(result.sessionId);
    assert.equal(header.settings.model, 'claude-sonnet-4-5', 'the session records the Anthropic id');
  });

  it('sends an id it does not know unchanged, and maps a dated Anthropic id', async () => {
    h.fake.enqueue(say('unknown'), say('dated'));
    await h.send('hello', { model: 'claude-sonnet-5-5' });
    await h.send('hello again', { model: 'claude-opus-4-1-20250805' });
    assert.deepEqual(h.fake.requests.map(r => [r.wire, r.body.model]), [['vertex', 'claude-sonnet-5-5'], ['vertex', 'claude-opus-4-1@20250805']]);
  });
});
