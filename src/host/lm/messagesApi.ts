// One streaming Messages API call with the global fetch (no SDK here: DESIGN §2 keeps one SDK importer,
// the runtime). Parts are handed out as they arrive; failures become errors that say what to do.
import { SseParser } from './sse';
import { StreamDecoder } from './streamDecoder';
import type { StreamPart } from './streamDecoder';

export interface MessagesCall {
  url: string;
  apiKey: string;
  body: object;
  signal: AbortSignal;
  onPart(part: StreamPart): void;
  fetchImpl?: typeof fetch;
}

export class MessagesApiError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'MessagesApiError';
  }
}

export async function streamMessages(call: MessagesCall): Promise<{ stopReason?: string }> {
  const response = await send(call);
  if (!response.ok) throw new MessagesApiError(await statusMessage(response), response.status);
  if (!response.body) throw new MessagesApiError('The model endpoint answered without a body.');
  const parser = new SseParser();
  const decoder = new StreamDecoder();
  const text = new TextDecoder();
  const deliver = (events: ReturnType<SseParser['push']>) => {
    for (const event of events) for (const part of decoder.handle(event)) call.onPart(part);
  };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    deliver(parser.push(text.decode(value, { stream: true })));
  }
  deliver(parser.push(text.decode()));
  deliver(parser.end());
  decoder.finish();
  return { stopReason: decoder.stopReason };
}

async function send(call: MessagesCall): Promise<Response> {
  try {
    return await (call.fetchImpl ?? fetch)(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': call.apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(call.body),
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new MessagesApiError(`Could not reach the model endpoint ${new URL(call.url).origin}: ${cause ?? (error as Error).message}`);
  }
}

export async function statusMessage(response: Response): Promise<string> {
  let detail = response.statusText;
  try {
    const body = (await response.json()) as { error?: { message?: string } };
    if (body?.error?.message) detail = body.error.message;
  } catch {
    // Not JSON: the status text says enough.
  }
  const status = response.status;
  if (status === 401 || status === 403) return `The Anthropic API rejected the API key (${status}): ${detail}. Run "Fork: Set Anthropic API Key".`;
  if (status === 429) return `Rate limited by the Anthropic API (429): ${detail}. Try again in a minute.`;
  if (status === 529) return `The Anthropic API is overloaded (529): ${detail}. Try again in a few minutes.`;
  if (status >= 500) return `The Anthropic API failed (${status}): ${detail}.`;
  return `The Anthropic API refused the request (${status}): ${detail}`;
}
