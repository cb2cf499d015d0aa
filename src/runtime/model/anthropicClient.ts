// The only importer of @anthropic-ai/sdk (docs/design.md §2). Streams one request and maps SDK errors to
// ModelError kinds the chat can explain. Retries are the agent loop's job (it reports them).
import Anthropic from '@anthropic-ai/sdk';
import type { ErrorInfo } from '../../common/agentEvents';
import type { ContentBlock, InputTransformation, Usage } from '../../common/transcript';
import type { EncodedBody, MessagesRequestBody } from './wire';
import { THINKING_BINDING_BETA, requestTtl } from './wire';
import { ModelError } from './modelClient';
import type { BodyFacts, ModelClient, ModelResponse, StreamHandlers } from './modelClient';
import { retryAdvice } from './retryRules';
import { providerModelId } from './modelIds';
import { retiredModelText, retiredToday } from '../../common/models';
import { createSdk } from './providers';
import { requestBytes } from './requestBytes';
import type { SdkOptions } from './providers';
import type { ListedModel } from '../../common/protocol/model';

export type AnthropicClientOptions = SdkOptions;
// For dist/lazy/cloud.js, which takes the SDK's modules from this bundle (sdkModules.ts).
export { sdkModules } from './sdkModules';

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  // Made on the first request: a provider's SDK loads only then (providers.ts).
  let sdk: Promise<Anthropic> | undefined;
  return {
    async stream(body: MessagesRequestBody, signal: AbortSignal, handlers: StreamHandlers, facts: BodyFacts = {}): Promise<ModelResponse> {
      let started = false;
      // Usage as the stream reported it so far: message_start carries the input, message_delta the output.
      let billed: Usage | undefined;
      let serverTime: number | undefined;
      const ttl = facts.ttl ?? requestTtl(body);
      try {
        const sent = { ...body, model: providerModelId(options.provider, body.model) };
        // A failed construction is not kept: the next request tries again.
        sdk ??= createSdk(options, { maxRetries: 0, timeout: 10 * 60_000 }).catch(error => {
          sdk = undefined;
          throw error;
        });
        // block_binding is refused without its beta header, which the API does not remember between requests.
        const beta = body.thinking?.type === 'adaptive' && body.thinking.block_binding ? { 'anthropic-beta': THINKING_BINDING_BETA } : undefined;
        const own = bodyOptions(options, sent, beta, facts.encoded);
        // With the bytes given, the SDK's params serve only its own bookkeeping (headers from the tools and
        // messages, which carry none of its helper marks): no second walk of a long history.
        const params = own.body ? { ...sent, messages: [] } : sent;
        const stream = (await sdk).messages.stream(params as unknown as Anthropic.MessageCreateParamsNonStreaming, { signal, ...own });
        // input_transformations: on message_start's message, again on message_delta after a mid-stream fallback.
        let transformations: InputTransformation[] | undefined;
        stream.on('streamEvent', event => {
          const carried = event.type === 'message_start' ? (event.message as { input_transformations?: unknown }).input_transformations
            : event.type === 'message_delta' ? (event as { input_transformations?: unknown }).input_transformations : undefined;
          if (Array.isArray(carried)) transformations = carried.filter(isTransformation);
        });
        stream.on('connect', () => {
          started = true;
          serverTime = dateHeader(stream.response?.headers);
        });
        stream.on('streamEvent', (_event, snapshot) => (billed = toUsage(snapshot.usage, ttl)));
        stream.on('text', delta => handlers.onText(delta));
        stream.on('thinking', delta => handlers.onThinking(delta));
        // message_start: from here the request's cache writes are readable by others (docs/design.md §4.5).
        stream.on('streamEvent', event => event.type === 'message_start' && handlers.onStart?.());
        const final = await stream.finalMessage();
        return {
          message: { role: 'assistant', content: final.content.flatMap(toContentBlock) },
          usage: toUsage(final.usage, ttl),
          stopReason: final.stop_reason ?? 'end_turn',
          serverTime,
          ...(transformations && transformations.length > 0 ? { inputTransformations: transformations } : {}),
        };
      } catch (error) {
        const modelError = toModelError(error, started, signal, retirement(body.model, options.provider?.name));
        modelError.billed = billed;
        modelError.serverTime = serverTime;
        throw modelError;
      }
    },
  };
}

/**
 * The Anthropic API's body as bytes we encoded (requestBytes.ts): its own `body` (the same params plus
 * `stream: true`, JSON.stringify'd) would be the same bytes. They go as a stream of the encoded Buffers with
 * their total as Content-Length (so no chunked encoding, and the same request on the wire): the SDK passes a
 * ReadableStream on verbatim, and fetch copies neither it nor its chunks — a single Buffer body it would copy
 * twice. The cloud SDKs rewrite the body for their endpoints (model into the URL, their version field), so
 * they encode it themselves; FORK_AGENTS_BODY_ENCODER=sdk does the same for the Anthropic API (to compare).
 */
function bodyOptions(options: AnthropicClientOptions, sent: MessagesRequestBody, headers: Record<string, string> | undefined, encoded: EncodedBody | undefined): { headers?: Record<string, string>; body?: ReadableStream<Uint8Array> } {
  if (options.provider || process.env.FORK_AGENTS_BODY_ENCODER === 'sdk') return headers ? { headers } : {};
  const bytes = encoded ?? wholeBody(requestBytes({ ...sent, stream: true }));
  return { headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes.byteLength) }, body: chunkStream(bytes.chunks) };
}

function wholeBody(bytes: Buffer): EncodedBody {
  return { chunks: [bytes], byteLength: bytes.length };
}

/** The chunks as a body stream, one chunk a pull (a request retried gets a fresh stream of the same chunks). */
function chunkStream(chunks: readonly Buffer[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]);
      else controller.close();
    },
  });
}

/** The endpoint's Claude models (every page); throws what the SDK threw. */
export async function listModels(options: AnthropicClientOptions): Promise<ListedModel[]> {
  if (options.provider) return []; // Bedrock and Vertex list models through their own consoles: the fallback list applies.
  const sdk = await createSdk(options, { maxRetries: 2, timeout: 30_000 });
  const models: ListedModel[] = [];
  for await (const model of sdk.models.list({ limit: 100 })) {
    if (!model.id.includes('claude')) continue;
    const window = (model as { max_input_tokens?: number | null }).max_input_tokens;
    models.push({ id: model.id, name: model.display_name || model.id, ...(window ? { contextWindow: window } : {}) });
  }
  return models;
}

function isTransformation(value: unknown): value is InputTransformation {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function toContentBlock(block: Anthropic.ContentBlock): ContentBlock[] {
  switch (block.type) {
    case 'text':
      // Empty text blocks are rejected when sent back, so they are never kept.
      return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    case 'thinking':
      return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: block.data }];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    default:
      return [];
  }
}

/**
 * The API's usage with cache writes split by TTL. A server that sends no split wrote with the TTL the
 * request asked for: every breakpoint of a request carries the session's one TTL.
 */
function toUsage(usage: Anthropic.Usage, ttl: '5m' | '1h'): Usage {
  const created = usage.cache_creation_input_tokens ?? 0;
  const split = usage.cache_creation;
  return {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: created,
    cache_creation: split
      ? { ephemeral_5m_input_tokens: split.ephemeral_5m_input_tokens ?? 0, ephemeral_1h_input_tokens: split.ephemeral_1h_input_tokens ?? 0 }
      : { ephemeral_5m_input_tokens: ttl === '5m' ? created : 0, ephemeral_1h_input_tokens: ttl === '1h' ? created : 0 },
  };
}

function dateHeader(headers: Headers | undefined): number | undefined {
  const value = headers?.get?.('date');
  const ms = value ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The request's model and the day it was retired (models.ts), when it is retired where it is sent. */
function retirement(model: string, provider: string | undefined): { model: string; day: string } | undefined {
  const day = retiredToday(model, provider ?? 'anthropic');
  return day ? { model, day } : undefined;
}

/** `retired`: the request's model when it is retired, which a 404 then names. */
function toModelError(error: unknown, started: boolean, signal: AbortSignal, retired?: { model: string; day: string }): ModelError {
  if (signal.aborted || error instanceof Anthropic.APIUserAbortError) {
    return new ModelError({ kind: 'cancelled', message: 'Cancelled.' });
  }
  if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
    const status = error.status;
    const detail = apiMessage(error);
    const advice = retryAdvice(status, error.headers);
    const make = (info: ErrorInfo) => new ModelError(info, advice.delayMs, advice.retryable);
    if (status === 401 || status === 403) {
      return make({ kind: 'auth', status, message: `The API key was rejected (${status}): ${detail}` });
    }
    if (status === 429) return make({ kind: 'rate_limit', status, message: `Rate limited (429): ${detail}` });
    if (status === 529) return make({ kind: 'overloaded', status, message: `The API is overloaded (529): ${detail}` });
    if (status >= 500) return make({ kind: 'server', status, message: `The API failed (${status}): ${detail}` });
    // A retired model's requests fail with a 404 not_found_error naming it (model-deprecations: "Requests to
    // retired models will fail"): say which model and since when, not only the API's "model: <id>".
    const why = status === 404 && retired ? ` ${retiredModelText(retired.model, retired.day)}` : '';
    return make({ kind: 'bad_request', status, message: `The API refused the request (${status}): ${detail}${why}` });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (started) {
    return new ModelError({ kind: 'stream_cut', message: `The response stream was cut mid-message (${message}); nothing of it was kept.` });
  }
  return new ModelError({ kind: 'network', message: `Could not reach the model endpoint: ${message}` });
}

function apiMessage(error: InstanceType<typeof Anthropic.APIError>): string {
  const body = error.error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? error.message;
}
