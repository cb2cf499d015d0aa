// Proxies: the runtime's model traffic and MCP http servers go through the proxy its client names (VS
// Code's http.proxy or HTTPS_PROXY in the CLI), and NO_PROXY hosts go direct. The proxy here is a plain
// local forwarder; the MCP server is the real server-everything over streamable HTTP.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { cliRunner, stopStoreRuntime } from './cliRunner';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { startProxy } from './localProxy';
import type { LocalProxy } from './localProxy';
import { resultText, startHttpEverything, toolResults } from './mcpSupport';
import type { HttpEverything } from './mcpSupport';
import { call, say } from './script';

describe('runtime: proxies', function () {
  this.timeout(30_000);
  let h: Harness;
  let proxy: LocalProxy;

  beforeEach(async () => {
    proxy = await startProxy();
    h = await startHarness();
  });
  afterEach(async () => {
    await h.dispose();
    await proxy.close();
  });

  it('sends model requests through the configured proxy, and straight to NO_PROXY hosts', async () => {
    const fakeHost = new URL(h.fake.url).host;
    await h.configure({ proxy: { url: proxy.url } });
    h.fake.enqueue(say('through the proxy'));
    assert.equal((await h.send('hello')).text, 'through the proxy');
    assert.ok(proxy.seen.some(line => line.includes(fakeHost)), `the proxy saw ${JSON.stringify(proxy.seen)}`);

    const before = proxy.seen.length;
    await h.configure({ proxy: { url: proxy.url, noProxy: '127.0.0.1' } });
    h.fake.enqueue(say('direct'));
    assert.equal((await h.send('again')).text, 'direct');
    assert.equal(proxy.seen.length, before, 'NO_PROXY host bypassed the proxy');

    await h.configure({ proxy: { url: '' } });
    h.fake.enqueue(say('direct again'));
    assert.equal((await h.send('once more')).text, 'direct again');
    assert.equal(proxy.seen.length, before);
  });
});

describe('runtime: MCP http servers through the proxy', function () {
  this.timeout(60_000);
  let remote: HttpEverything;
  let events: HttpEverything;
  let proxy: LocalProxy;
  // `localhost` for the MCP servers, 127.0.0.1 for the model: NO_PROXY can tell them apart.
  let mcpUrl: string;
  // undici tunnels plain HTTP through the proxy too: one `CONNECT localhost:<port>` per connection.
  const mcpSeen = (port = remote.port) => proxy.seen.filter(line => line.includes(`localhost:${port}`));

  before(async () => {
    [remote, events] = await Promise.all([startHttpEverything(), startHttpEverything('sse')]);
    mcpUrl = `http://localhost:${remote.port}/mcp`;
  });
  after(() => {
    remote.close();
    events.close();
  });
  beforeEach(async () => {
    proxy = await startProxy();
  });
  afterEach(() => proxy.close());

  it('runtime/configure\'s proxy carries MCP http and sse traffic; a NO_PROXY host goes direct while the model still uses the proxy', async () => {
    const mcpServers = [{ name: 'remote', type: 'http' as const, url: mcpUrl }, { name: 'events', type: 'sse' as const, url: `http://localhost:${events.port}/sse` }];
    const h = await startHarness({ config: { proxy: { url: proxy.url }, mcpServers } });
    try {
      const modelSeen = () => proxy.seen.filter(line => line.includes(new URL(h.fake.url).host));
      h.fake.enqueue(call(['mcp__remote__get-sum', { a: 20, b: 22 }], ['mcp__events__echo', { message: 'over sse' }]), say('done'));
      const { sessionId } = await h.send('add');
      const [sum, echo] = toolResults(h.fake.requests[1]);
      assert.match(resultText(sum), /42/);
      assert.equal(resultText(echo), 'Echo: over sse');
      assert.ok(mcpSeen().length > 0 && mcpSeen(events.port).length > 0, `the proxy saw ${JSON.stringify(proxy.seen)}`);

      await h.configure({ proxy: { url: proxy.url, noProxy: 'localhost' } });
      const [mcpBefore, sseBefore, modelBefore] = [mcpSeen().length, mcpSeen(events.port).length, modelSeen().length];
      h.fake.enqueue(call(['mcp__remote__get-sum', { a: 1, b: 2 }], ['mcp__events__echo', { message: 'direct' }]), say('direct'));
      assert.equal((await h.send('add again', { sessionId })).text, 'direct');
      const [sum2, echo2] = toolResults(h.fake.requests.at(-1)!);
      assert.match(resultText(sum2), /\b3\b/);
      assert.equal(resultText(echo2), 'Echo: direct');
      assert.equal(mcpSeen().length, mcpBefore, 'the NO_PROXY host was reached directly');
      assert.equal(mcpSeen(events.port).length, sseBefore, 'the SSE server\'s new requests too');
      assert.ok(modelSeen().length > modelBefore, 'the model still went through the proxy');
    } finally {
      await h.dispose();
    }
  });

  describe('the CLI', () => {
    let fake: FakeAnthropic;
    let base: string;
    let extra: NodeJS.ProcessEnv = {};
    const cli = cliRunner({ apiKey: 'k-proxy', baseUrl: () => fake.url, store: () => path.join(base, 'store'), extra: () => extra });

    beforeEach(async () => {
      fake = await startFakeAnthropic({ apiKey: 'k-proxy' });
      base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cli-proxy-'));
      fs.mkdirSync(path.join(base, 'work'));
      fs.mkdirSync(path.join(base, 'config', 'fork-agents'), { recursive: true });
      fs.writeFileSync(path.join(base, 'config', 'fork-agents', 'mcp.json'), JSON.stringify({ servers: { remote: { type: 'http', url: mcpUrl } } }));
    });
    afterEach(async () => {
      stopStoreRuntime(path.join(base, 'store'));
      await fake.close();
    });

    it('HTTPS_PROXY carries MCP HTTP traffic; NO_PROXY hosts go direct', async () => {
      const modelSeen = () => proxy.seen.filter(line => line.includes(new URL(fake.url).host));
      const chat = () => cli('chat', '--cwd', path.join(base, 'work'), '--approval', 'auto', '--json', 'add');
      fake.enqueue(call(['mcp__remote__get-sum', { a: 40, b: 2 }]), say('done'));
      extra = { XDG_CONFIG_HOME: path.join(base, 'config'), HTTPS_PROXY: proxy.url };
      const proxied = await chat();
      assert.equal(proxied.code, 0, proxied.stderr);
      assert.match(resultText(toolResults(fake.requests[1])[0]), /42/);
      assert.ok(mcpSeen().length > 0, `the proxy saw ${JSON.stringify(proxy.seen)}`);

      const [mcpBefore, modelBefore] = [mcpSeen().length, modelSeen().length];
      fake.enqueue(call(['mcp__remote__get-sum', { a: 1, b: 2 }]), say('done'));
      extra = { ...extra, NO_PROXY: 'localhost' };
      const direct = await chat();
      assert.equal(direct.code, 0, direct.stderr);
      assert.match(resultText(toolResults(fake.requests.at(-1)!)[0]), /\b3\b/);
      assert.equal(mcpSeen().length, mcpBefore, 'the NO_PROXY host was reached directly');
      assert.ok(modelSeen().length > modelBefore, 'the model still went through the proxy');
    });
  });
});
