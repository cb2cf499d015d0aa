// Proxies: the runtime's model traffic goes through the proxy its client names (VS Code's http.proxy
// or HTTPS_PROXY in the CLI), and NO_PROXY hosts go direct. The proxy here is a plain local forwarder.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

interface LocalProxy { url: string; seen: string[]; close(): Promise<void> }

async function startProxy(): Promise<LocalProxy> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    // Absolute-form requests (plain HTTP through a proxy).
    seen.push(`GET-form ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, reply => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

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
