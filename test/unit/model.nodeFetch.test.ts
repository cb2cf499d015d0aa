// model/nodeFetch.ts against a real local HTTP server: what the Anthropic SDK relies on of a fetch — a
// ReadableStream body sent with its length, the response body as a stream that ends only at the response's
// end, a connection cut mid-body as an error (not an end), and an abort mid-body.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeFetch } from '../../src/runtime/model/nodeFetch';
import { FetchHeaders } from '../../src/runtime/model/fetchHeaders';

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`,
    close: () => new Promise<void>(resolve => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function readAll(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise(resolve => request.on('end', () => resolve(Buffer.concat(chunks))));
}

async function readBody(body: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  return text;
}

describe('model: nodeFetch, the SDK\'s fetch over node:http', () => {
  it('sends a stream body with its length and headers; answers status, headers and a streamed body', async () => {
    let seen: { headers: http.IncomingHttpHeaders; body: string } | undefined;
    const server = await serve(async (request, response) => {
      seen = { headers: request.headers, body: (await readAll(request)).toString() };
      response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
      response.write('event: a\n\n');
      response.end('event: b\n\n');
    });
    try {
      const chunks = [Buffer.from('{"a":'), Buffer.from('1}')];
      let next = 0;
      const body = new ReadableStream<Uint8Array>({ pull: c => (next < chunks.length ? c.enqueue(chunks[next++]) : c.close()) });
      const headers = new FetchHeaders({ 'Content-Type': 'application/json', 'content-length': '7', 'X-Api-Key': 'k' });
      const response = await nodeFetch(server.url, { method: 'POST', headers, body });
      assert.equal(response.status, 200);
      assert.ok(response.ok);
      assert.equal(response.headers.get('Request-Id'), 'req_1');
      assert.equal(await readBody(response.body), 'event: a\n\nevent: b\n\n');
      assert.equal(seen!.body, '{"a":1}');
      assert.equal(seen!.headers['content-length'], '7');
      assert.equal(seen!.headers['x-api-key'], 'k');
      assert.equal(seen!.headers['transfer-encoding'], undefined);
    } finally {
      await server.close();
    }
  });

  it('a string body gets its length; an error status is not ok and its text is readable', async () => {
    const server = await serve(async (request, response) => {
      const body = (await readAll(request)).toString();
      response.writeHead(529, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ got: body, length: request.headers['content-length'] }));
    });
    try {
      const response = await nodeFetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'héllo' });
      assert.equal(response.ok, false);
      assert.equal(response.status, 529);
      assert.deepEqual(await response.json(), { got: 'héllo', length: '6' });
    } finally {
      await server.close();
    }
  });

  it('a connection cut mid-body errors the body stream instead of ending it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: a\n\n', () => response.socket?.destroy());
    });
    try {
      const response = await nodeFetch(server.url);
      await assert.rejects(readBody(response.body));
    } finally {
      await server.close();
    }
  });

  it('an abort before the response rejects with an AbortError; one mid-body errors the body', async () => {
    let wrote: () => void = () => undefined;
    const firstChunk = new Promise<void>(resolve => (wrote = resolve));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: a\n\n', () => wrote());
    });
    try {
      const early = new AbortController();
      early.abort();
      await assert.rejects(nodeFetch(server.url, { signal: early.signal }), (error: Error) => error.name === 'AbortError');

      const late = new AbortController();
      const response = await nodeFetch(server.url, { signal: late.signal });
      await firstChunk;
      const reading = readBody(response.body);
      late.abort();
      await assert.rejects(reading, (error: Error) => error.name === 'AbortError');
    } finally {
      await server.close();
    }
  });

  it('FetchHeaders: case-insensitive, repeated values joined, sorted iteration; Node\'s Headers count as headers', () => {
    const headers = new FetchHeaders([['B', '1'], ['a', '2'], ['b', '3']]);
    assert.equal(headers.get('b'), '1, 3');
    assert.deepEqual([...headers], [['a', '2'], ['b', '1, 3']]);
    headers.delete('A');
    assert.equal(headers.has('a'), false);
    const platform = new Headers({ 'X-One': '1' });
    assert.ok(platform instanceof FetchHeaders, 'the cloud SDKs hand Node\'s Headers to the SDK\'s instanceof checks');
    assert.equal(new FetchHeaders(platform).get('x-one'), '1');
    assert.equal(new Headers(new FetchHeaders({ 'x-two': '2' }) as unknown as [string, string][]).get('x-two'), '2', 'Node\'s fetch takes these headers');
  });

  it('https: a request to a TLS server the process trusts (NODE_EXTRA_CA_CERTS), in a Node of its own', async function () {
    this.timeout(20_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
    const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"over":"tls"}');
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://localhost:${(server.address() as AddressInfo).port}/v1/models`;
      const script = `require(${JSON.stringify(require.resolve('../../src/runtime/model/nodeFetch'))}).nodeFetch(${JSON.stringify(url)})`
        + '.then(r => r.text().then(t => { process.stdout.write(r.status + " " + t); process.exit(0); }), e => { console.error(e); process.exit(1); })';
      const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
      assert.equal(code, 0, err);
      assert.equal(out, '200 {"over":"tls"}');
    } finally {
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
