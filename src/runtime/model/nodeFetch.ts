// The fetch the Anthropic SDK is given for a direct connection to the Anthropic API: node:http / node:https
// with keep-alive, instead of Node's global fetch, which loads Node's bundled undici (its fetch, Headers and
// llhttp WebAssembly) on the first request and keeps about 10-20 MB of RSS for the runtime's life
// (docs/design.md §2, the model client; measured in docs/benchmarks.md, "Idle RSS without Node's fetch").
// Only what the SDK asks of a fetch: a method, headers, a string / bytes / ReadableStream body, an AbortSignal;
// a response with status, headers, a ReadableStream body, text() and json(). It follows no redirects (the API
// sends none) and asks for no compression.
// A proxy, Bedrock and Vertex keep undici's fetch (providers.ts).
import * as http from 'node:http';
import type * as Https from 'node:https';
import { FetchHeaders } from './fetchHeaders';

/** Idle keep-alive sockets close after this, as undici's do (its keepAliveTimeout is 4 s). */
const IDLE_SOCKET_MS = 4_000;
interface Transport { request: typeof http.request; agent: http.Agent }
const transports: Record<string, () => Transport> = {
  'http:': once(() => ({ request: http.request, agent: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) })),
  // node:https (and with it node:tls) loads on the first https request: a local endpoint (the demo model, a
  // gateway on localhost) never needs it.
  'https:': once(() => {
    const https = require('node:https') as typeof Https;
    return { request: https.request, agent: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) };
  }),
};

function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

type Body = string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | null | undefined;
export interface NodeFetchInit { method?: string; headers?: unknown; body?: Body; signal?: AbortSignal | null }

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

class NodeFetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;

  constructor(readonly url: string, message: http.IncomingMessage, readonly body: ReadableStream<Uint8Array>) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new FetchHeaders();
    for (let i = 0; i < message.rawHeaders.length; i += 2) this.headers.append(message.rawHeaders[i], message.rawHeaders[i + 1]);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    const chunks: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const whole = Buffer.concat(chunks);
    return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return Buffer.from(await this.arrayBuffer()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
}

/** The response's bytes as a web stream that reads the socket only as fast as the SDK pulls. */
function bodyStream(message: http.IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      message.on('data', (chunk: Buffer) => {
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) message.pause();
      });
      message.on('end', () => {
        if (!settled) controller.close();
        settled = true;
      });
      const cut = (error: unknown) => {
        if (!settled) controller.error(error);
        settled = true;
      };
      message.on('error', cut);
      // A connection that closes before the body's end is a cut stream, not an end.
      message.on('close', () => !message.complete && cut(new Error('terminated: the connection closed before the response ended')));
    },
    pull() {
      message.resume();
    },
    cancel() {
      settled = true;
      message.destroy();
    },
  });
}

function headerRecord(headers: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  const source = new FetchHeaders(headers as ConstructorParameters<typeof FetchHeaders>[0]);
  for (const [name, value] of source) record[name] = value;
  return record;
}

/** Until the request can take more, or is gone (a failed request emits no 'drain'). */
function drained(request: http.ClientRequest): Promise<void> {
  return new Promise(resolve => {
    const done = () => {
      request.off('drain', done);
      request.off('close', done);
      resolve();
    };
    request.on('drain', done);
    request.on('close', done);
  });
}

async function writeBody(request: http.ClientRequest, body: Body): Promise<void> {
  if (body === null || body === undefined) return void request.end();
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) {
    return void request.end(typeof body === 'string' ? body : Buffer.from(body as Uint8Array));
  }
  const reader = body.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (request.destroyed) return void reader.cancel().catch(() => undefined); // the request failed; its error is reported by the 'error' listener
    if (!request.write(next.value)) await drained(request);
  }
  request.end();
}

export function nodeFetch(input: string | URL | { url: string }, init: NodeFetchInit = {}): Promise<NodeFetchResponse> {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const transport = Object.hasOwn(transports, url.protocol) ? transports[url.protocol]() : undefined;
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => {
    if (!transport) return reject(new TypeError(`fetch: unsupported protocol ${url.protocol}`));
    if (signal?.aborted) return reject(abortReason(signal));
    const headers = headerRecord(init.headers);
    const body = init.body;
    if (headers['content-length'] === undefined && (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer)) {
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    }
    const request = transport.request(url, { method: init.method ?? 'GET', headers, agent: transport.agent });
    let message: http.IncomingMessage | undefined;
    const onAbort = () => {
      const reason = abortReason(signal!);
      message?.destroy(reason as Error);
      request.destroy(reason as Error);
      reject(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', error => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    request.on('response', response => {
      message = response;
      // The listener stays until the body ends: aborting a streamed body cuts it (the SDK's timeout, a cancel).
      response.on('close', () => signal?.removeEventListener('abort', onAbort));
      resolve(new NodeFetchResponse(url.href, response, bodyStream(response)));
    });
    writeBody(request, body).catch(error => request.destroy(error as Error));
  });
}
