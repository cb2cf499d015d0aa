// Fake Anthropic Messages API (docs/design.md §8): a real HTTP server that validates requests like the real API,
// simulates prompt caching, streams scripted turns as SSE and injects faults, so the runtime, tests,
// benchmarks and the demo talk to it exactly as they would to api.anthropic.com.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Usage } from '../../src/common/transcript';
import { ApiError, invalid, sendError, sendJson } from './apiErrors';
import { PromptCache, countInputTokens } from './cache';
import { documentedMinCacheTokens } from './cacheMinimums';
import type { CachePlan, CacheStats } from './cache';
import { IdSource } from './ids';
import { buildMessage, messageEvents, writeSse } from './sse';
import type { FakeMessage, StreamOutcome } from './sse';
import { checkHeaders, validateRequest } from './validate';
import { bedrockChunk } from './awsEventStream';
import { checkPreservedRequest, signBlock } from './preservedThinking';
import { CURRENT_MODELS, isRetiredModel } from './models';
import type { ListedFakeModel } from './models';
import type { BindingContext } from './preservedThinking';

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id?: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string };

export interface ScriptedTurn {
  content: FakeBlock[];
  /** Defaults to 'tool_use' when the content has a tool_use block, else 'end_turn'. */
  stop_reason?: 'end_turn' | 'tool_use' | 'max_tokens';
}

export type Fault =
  /** `headers` adds raw response headers (retry-after as an HTTP-date, retry-after-ms, x-should-retry). */
  | { fault: 'rate_limit'; retryAfterSeconds?: number; headers?: Record<string, string> }
  | { fault: 'overloaded'; retryAfterSeconds?: number; headers?: Record<string, string> }
  | { fault: 'server_error'; headers?: Record<string, string> }
  | { fault: 'unauthorized' }
  | { fault: 'cut_stream'; afterTextChars?: number }
  | { fault: 'hang' };

export type RequestOutcome = 'completed' | 'rejected' | 'fault' | 'cut' | 'aborted';

export interface ReceivedRequest {
  /** Parsed JSON body (undefined when it did not parse). */
  body: any;
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  /** Usage of the response, set when it starts (message_start); absent for rejected and faulted requests. */
  usage?: Usage;
  /** HTTP status sent, when one was. */
  status?: number;
  /** How the exchange ended; set once it is over (see onResponse). */
  outcome?: RequestOutcome;
  /** The assistant message sent (or being streamed). */
  response?: FakeMessage;
  /** The error message of a rejected request. */
  error?: string;
  /** Which wire format it came in: the Messages API, or Vertex AI's streamRawPredict (body turned into a Messages one). */
  wire?: 'anthropic' | 'vertex' | 'bedrock';
  /** Vertex and Bedrock: the body's anthropic_version. */
  vertexVersion?: unknown;
  /** The 5.5 models: what the request's thinking check found (drops reported as input_transformations). */
  binding?: BindingContext;
}

/** The Vertex body as a Messages API body: model from the path, anthropic_version taken out. */
function fromVertex(record: ReceivedRequest, model: string): unknown {
  if (!record.body || typeof record.body !== 'object') return undefined;
  const { anthropic_version: version, ...rest } = record.body as Record<string, unknown>;
  record.body = { model, ...rest };
  return version;
}

function checkBedrock(headers: Record<string, string | string[] | undefined>, version: unknown, body: unknown): void {
  if (!/^AWS4-HMAC-SHA256 Credential=\S+/.test(String(headers.authorization ?? ''))) throw new ApiError(403, 'authentication_error', 'Bedrock: a SigV4 signature is required');
  // Like the vertex-sdk, the bedrock-sdk moves the anthropic-version header into the body.
  if (typeof version !== 'string' || version === '') invalid('anthropic_version: Field required (Bedrock takes it in the body)');
  // prompt-caching, "Automatic caching" (copy of 2026-10, read 2026-12-02): on the legacy Bedrock integration
  // (InvokeModel, this wire) "the API returns a 400 error for a top-level cache_control field".
  if (body && typeof body === 'object' && 'cache_control' in body) invalid('cache_control: Extra inputs are not permitted');
}

function checkVertex(headers: Record<string, string | string[] | undefined>, version: unknown): void {
  if (!/^Bearer\s+\S+/i.test(String(headers.authorization ?? ''))) throw new ApiError(401, 'authentication_error', 'Vertex: a Google OAuth bearer token is required');
  // The vertex-sdk moves the anthropic-version header into the body (older ones sent "vertex-2023-10-16").
  if (typeof version !== 'string' || version === '') invalid('anthropic_version: Field required (Vertex takes it in the body)');
}

export type Responder = (req: ReceivedRequest) => ScriptedTurn | Fault | Promise<ScriptedTurn | Fault>;

export interface FakeAnthropicOptions {
  /** Default 0: any free port. */
  port?: number;
  /** When set, x-api-key must equal it (it must be present either way). */
  apiKey?: string;
  responder?: Responder;
  /** Prefix of the tool-use and message ids this server issues (default none: toolu_1, toolu_2, …). */
  idPrefix?: string;
  /** Smallest prefix, in estimated tokens, that gets cached, for every model. Default: each model's documented minimum. */
  minCacheTokens?: number;
  /** Pause between SSE events, so cancellation tests can cut in. Default 0. */
  streamDelayMs?: number;
  /** Pause before message_start (time to first token): until it ends, this request's cache writes are unreadable. Default 0. */
  firstEventDelayMs?: number;
  /** Clock for cache TTLs; tests pass a settable one instead of sleeping. Default Date.now. */
  now?: () => number;
  /** What GET /v1/models lists; absent: today's models (models.ts); 'none': the endpoint answers 404, as some compatible servers do. */
  models?: ListedFakeModel[] | 'none';
  /** The account this server's keys belong to: 5.5 thinking blocks are bound to it (default "acct_fake"). */
  account?: string;
}

export interface FakeAnthropic {
  /** Base URL for the SDK's baseURL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Every POST /v1/messages, in arrival order, rejected ones included. */
  requests: ReceivedRequest[];
  enqueue(...turns: (ScriptedTurn | Fault)[]): void;
  setResponder(r: Responder | undefined): void;
  setApiKey(key: string | undefined): void;
  /** Called when a request's body has arrived, before it is answered. Returns an unsubscribe function. */
  onRequest(listener: (r: ReceivedRequest) => void): () => void;
  /** Called when an exchange is over (outcome set). Returns an unsubscribe function. */
  onResponse(listener: (r: ReceivedRequest) => void): () => void;
  /** Scripted turns and faults not yet consumed. */
  pending(): number;
  cacheStats(): CacheStats;
  clearCache(): void;
  close(): Promise<void>;
}

export const NO_TURN_MESSAGE = 'fake server: no scripted turn left';
const CUT_FILLER = 'This answer is being streamed slowly and will be cut off before it reaches its end. ';

interface State {
  queue: (ScriptedTurn | Fault)[];
  responder?: Responder;
  apiKey?: string;
  requests: ReceivedRequest[];
  requestListeners: Set<(r: ReceivedRequest) => void>;
  responseListeners: Set<(r: ReceivedRequest) => void>;
  cache: PromptCache;
  ids: IdSource;
  streamDelayMs: number;
  firstEventDelayMs: number;
  now: () => number;
  models?: readonly ListedFakeModel[];
  account: string;
  nonces: number;
}

export function isFault(value: ScriptedTurn | Fault): value is Fault {
  return 'fault' in value;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const state: State = {
    queue: [],
    responder: options.responder,
    apiKey: options.apiKey,
    requests: [],
    requestListeners: new Set(),
    responseListeners: new Set(),
    cache: new PromptCache(options.minCacheTokens ?? documentedMinCacheTokens, options.now ?? Date.now),
    ids: new IdSource(options.idPrefix),
    streamDelayMs: options.streamDelayMs ?? 0,
    firstEventDelayMs: options.firstEventDelayMs ?? 0,
    now: options.now ?? Date.now,
    models: options.models === 'none' ? undefined : options.models ?? CURRENT_MODELS,
    account: options.account ?? 'acct_fake',
    nonces: 0,
  };
  const server = createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) sendError(res, new ApiError(500, 'api_error', `fake server: ${message}`, { 'x-should-retry': 'false' }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const subscribe = (set: Set<(r: ReceivedRequest) => void>, listener: (r: ReceivedRequest) => void) => {
    set.add(listener);
    return () => void set.delete(listener);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    enqueue: (...turns) => void state.queue.push(...turns),
    setResponder: r => void (state.responder = r),
    setApiKey: key => void (state.apiKey = key),
    onRequest: listener => subscribe(state.requestListeners, listener),
    onResponse: listener => subscribe(state.responseListeners, listener),
    pending: () => state.queue.length,
    cacheStats: () => state.cache.stats(),
    clearCache: () => state.cache.clear(),
    close: () =>
      new Promise<void>(resolve => {
        // Hanging and streaming exchanges would otherwise keep close() waiting.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** 32 MB, read as MiB (the page does not say which). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function finish(state: State, record: ReceivedRequest, outcome: RequestOutcome): void {
  record.outcome = outcome;
  for (const listener of [...state.responseListeners]) listener(record);
}

function closedPromise(res: ServerResponse): Promise<void> {
  return new Promise(resolve => {
    if (res.destroyed) resolve();
    else res.once('close', () => resolve());
  });
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'GET' && path === '/v1/models' && state.models) {
    const data = state.models.map(m => ({ type: 'model', created_at: '2025-01-01T00:00:00Z', capabilities: null, ...m, max_tokens: m.max_tokens ?? null, max_input_tokens: m.max_input_tokens ?? null }));
    sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    return;
  }
  // Vertex AI's wire format: the model in the path, anthropic_version in the body, a Google bearer token.
  const vertex = /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/.exec(path);
  // Bedrock's: /model/{id}/invoke-with-response-stream, SigV4-signed, answered as an AWS event stream.
  const bedrock = /^\/model\/([^/]+)\/(invoke-with-response-stream|invoke)$/.exec(path);
  const endpoint = vertex || bedrock || path === '/v1/messages' ? 'messages' : path === '/v1/messages/count_tokens' ? 'count_tokens' : undefined;
  if (req.method !== 'POST' || endpoint === undefined) {
    sendError(res, new ApiError(404, 'not_found_error', `fake server: no route for ${req.method ?? '?'} ${path}`));
    return;
  }
  // The Date header follows the fake's clock, as the real API's follows the provider's.
  res.setHeader('date', new Date(state.now()).toUTCString());
  const rawBody = await readBody(req);
  const record: ReceivedRequest = { body: parseJson(rawBody), rawBody, headers: { ...req.headers }, wire: vertex ? 'vertex' : bedrock ? 'bedrock' : 'anthropic' };
  if (vertex) record.vertexVersion = fromVertex(record, decodeURIComponent(vertex[1]));
  if (bedrock) {
    record.vertexVersion = fromVertex(record, decodeURIComponent(bedrock[1]));
    if (record.body && bedrock[2] === 'invoke-with-response-stream') record.body.stream = true;
  }
  if (endpoint === 'messages') {
    state.requests.push(record);
    for (const listener of [...state.requestListeners]) listener(record);
  }
  try {
    // https://platform.claude.com/docs/en/api/errors, "Request size limits" (read 2026-12-02): 32 MB for the
    // Messages and Token Counting APIs, over it a 413 request_too_large, "returned from Cloudflare before the
    // request reaches our API servers" (so before any other check). Its body there is not shown: ours is the usual one.
    if (Buffer.byteLength(rawBody) > MAX_REQUEST_BYTES) throw new ApiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
    if (vertex) checkVertex(req.headers, record.vertexVersion);
    else if (bedrock) checkBedrock(req.headers, record.vertexVersion, record.body);
    else checkHeaders(req.headers, state.apiKey);
    if (record.body === undefined) invalid('There was an error parsing the body: it is not valid JSON');
    validateRequest(record.body, endpoint);
    if (record.wire === 'anthropic' && isRetiredModel(String(record.body.model))) throw new ApiError(404, 'not_found_error', `model: ${String(record.body.model)}`);
    record.binding = checkPreservedRequest(record.body, req.headers, state.account);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    record.status = err.status;
    record.error = err.message;
    sendError(res, err);
    finish(state, record, 'rejected');
    return;
  }
  if (endpoint === 'count_tokens') {
    sendJson(res, 200, { input_tokens: countInputTokens(record.body) });
    return;
  }
  // The cache is consulted on arrival; the writes wait for the response to start.
  const plan = state.cache.plan(record.body);
  const closed = closedPromise(res);
  const next = state.queue.shift() ?? (state.responder ? await state.responder(record) : undefined);
  if (next === undefined) {
    record.status = 500;
    record.error = NO_TURN_MESSAGE;
    // x-should-retry: false keeps the SDK from retrying a script that has simply run out.
    sendError(res, new ApiError(500, 'api_error', NO_TURN_MESSAGE, { 'x-should-retry': 'false' }));
    finish(state, record, 'rejected');
    return;
  }
  if (isFault(next)) {
    finish(state, record, await answerFault(state, record, res, next, plan, closed));
    return;
  }
  if (state.firstEventDelayMs > 0) await sleep(state.firstEventDelayMs);
  if (res.destroyed) {
    finish(state, record, 'aborted');
    return;
  }
  finish(state, record, await answer(state, record, res, next, plan));
}

async function answer(state: State, record: ReceivedRequest, res: ServerResponse, turn: ScriptedTurn, plan: CachePlan, cutAfterTextChars?: number): Promise<StreamOutcome> {
  const body = record.body as { model: string; stream?: boolean; thinking?: { type: string } };
  const binding = record.binding;
  const message = buildMessage(turn, { model: body.model, usage: plan.usage, ids: state.ids, thinkingEnabled: binding ? binding.thinks : body.thinking?.type === 'enabled' });
  if (binding) bindResponse(message, binding, () => `n${++state.nonces}`);
  record.response = message;
  record.status = 200;
  const start = (): void => {
    plan.commit();
    record.usage = message.usage;
  };
  if (body.stream) {
    const framing = record.wire === 'bedrock' ? { contentType: 'application/vnd.amazon.eventstream', encode: bedrockChunk } : undefined;
    return writeSse(res, messageEvents(message), { delayMs: state.streamDelayMs, cutAfterTextChars, onStart: start, framing });
  }
  start();
  sendJson(res, 200, message);
  return 'completed';
}

async function answerFault(state: State, record: ReceivedRequest, res: ServerResponse, fault: Fault, plan: CachePlan, closed: Promise<void>): Promise<RequestOutcome> {
  const extra = 'headers' in fault ? fault.headers : undefined;
  const retryAfter = (seconds: number | undefined): Record<string, string> => ({ ...(seconds === undefined ? {} : { 'retry-after': String(seconds) }), ...extra });
  let error: ApiError;
  switch (fault.fault) {
    case 'rate_limit':
      error = new ApiError(429, 'rate_limit_error', 'This request would exceed the rate limit for your organization (fake server fault).', retryAfter(fault.retryAfterSeconds));
      break;
    case 'overloaded':
      error = new ApiError(529, 'overloaded_error', 'Overloaded', retryAfter(fault.retryAfterSeconds));
      break;
    case 'server_error':
      error = new ApiError(500, 'api_error', 'Internal server error', extra);
      break;
    case 'unauthorized':
      error = new ApiError(401, 'authentication_error', 'invalid x-api-key');
      break;
    case 'cut_stream': {
      const limit = fault.afterTextChars ?? 20;
      if (!record.body.stream) {
        // Without a stream there is nothing to cut mid-way: the connection drops before any response.
        res.destroy();
        return 'cut';
      }
      const filler = CUT_FILLER.repeat(Math.ceil((limit + 40) / CUT_FILLER.length));
      return answer(state, record, res, { content: [{ type: 'text', text: filler }] }, plan, limit);
    }
    case 'hang':
      // Send nothing; the exchange ends when the client gives up (or the server closes).
      await closed;
      return 'aborted';
  }
  record.status = error.status;
  record.error = error.message;
  sendError(res, error);
  return 'fault';
}

/**
 * A 5.5 model's response: its thinking blocks bound to this request's prefix (plus the blocks before them)
 * and to the last block read; their text only with display "summarized" (the default "omitted" returns the
 * signature alone); input_transformations when the request sent the beta header.
 */
function bindResponse(message: FakeMessage, binding: BindingContext, nonce: () => string): void {
  const digest = binding.prefix.copy();
  let previous = binding.lastRead;
  if (!binding.thinks) message.content = message.content.filter(block => block.type !== 'thinking');
  message.content = message.content.map(block => {
    if (block.type !== 'thinking') {
      digest.add('assistant', block);
      return block;
    }
    const id = nonce();
    const thinking = binding.display === 'summarized' ? block.thinking : '';
    const signature = signBlock(thinking, { m: binding.model, a: binding.account, p: digest.value(), b: previous }, id);
    previous = id;
    return { type: 'thinking', thinking, signature };
  });
  if (binding.transformations) message.input_transformations = binding.transformations;
}
