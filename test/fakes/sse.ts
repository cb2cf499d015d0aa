// Builds the assistant message for a scripted turn and streams it with the real API's SSE event sequence
// (message_start, content_block_start/delta/stop, ping, message_delta, message_stop), so the SDK parses it.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Usage } from '../../src/common/transcript';
import type { ScriptedTurn } from './anthropicServer';
import { nextRequestId } from './apiErrors';
import type { InputUsage } from './cache';
import { thinkingSignature } from './ids';
import type { IdSource } from './ids';

export type OutBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string };

export interface FakeMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: Usage;
  /** Sent with the thinking-binding beta header: what the API dropped before the model read the request. */
  input_transformations?: { type: string; path: string; reason: string }[];
}

export interface SseEvent { event: string; data: Record<string, unknown> }

export type StreamOutcome = 'completed' | 'cut' | 'aborted';

/** Stands in for the thinking a real model always emits first when extended thinking is on. */
export const DEFAULT_THINKING = 'Let me think about how to answer this.';

export interface BuildContext { model: string; usage: InputUsage; ids: IdSource; thinkingEnabled: boolean }

export function buildMessage(turn: ScriptedTurn, ctx: BuildContext): FakeMessage {
  const content: OutBlock[] = turn.content.map((block): OutBlock => {
    switch (block.type) {
      case 'text': return { type: 'text', text: block.text };
      case 'tool_use': return { type: 'tool_use', id: block.id ?? ctx.ids.toolUseId(), name: block.name, input: block.input };
      case 'thinking': return { type: 'thinking', thinking: block.thinking, signature: thinkingSignature(block.thinking) };
    }
  });
  // With thinking on, the API insists the continued assistant turn opens with thinking, so emit one.
  if (ctx.thinkingEnabled && content[0]?.type !== 'thinking') {
    content.unshift({ type: 'thinking', thinking: DEFAULT_THINKING, signature: thinkingSignature(DEFAULT_THINKING) });
  }
  const stopReason = turn.stop_reason ?? (content.some(b => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    id: ctx.ids.messageId(),
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { ...ctx.usage, output_tokens: outputTokens(content) },
  };
}

/** Output tokens = ceil(generated characters / 4), the same estimate as the input side. */
export function outputTokens(content: OutBlock[]): number {
  let chars = 0;
  for (const block of content) {
    if (block.type === 'text') chars += block.text.length;
    else if (block.type === 'thinking') chars += block.thinking.length;
    else chars += JSON.stringify(block.input).length;
  }
  return Math.ceil(chars / 4);
}

/** Splits by code points so a chunk never ends inside a surrogate pair. */
function chunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

function blockEvents(block: OutBlock, index: number): SseEvent[] {
  const delta = (d: Record<string, unknown>): SseEvent => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
  const start = (b: Record<string, unknown>): SseEvent => ({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: b } });
  const events: SseEvent[] = [];
  if (block.type === 'text') {
    events.push(start({ type: 'text', text: '' }));
    for (const piece of chunks(block.text, 16)) events.push(delta({ type: 'text_delta', text: piece }));
  } else if (block.type === 'tool_use') {
    events.push(start({ type: 'tool_use', id: block.id, name: block.name, input: {} }));
    const json = JSON.stringify(block.input);
    // Like the real API: an empty first fragment, then the JSON in a few arbitrary cuts.
    const third = Math.max(1, Math.ceil(json.length / 3));
    events.push(delta({ type: 'input_json_delta', partial_json: '' }));
    for (const piece of chunks(json, third)) events.push(delta({ type: 'input_json_delta', partial_json: piece }));
  } else {
    events.push(start({ type: 'thinking', thinking: '', signature: '' }));
    for (const piece of chunks(block.thinking, 24)) events.push(delta({ type: 'thinking_delta', thinking: piece }));
    events.push(delta({ type: 'signature_delta', signature: block.signature }));
  }
  events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  return events;
}

export function messageEvents(message: FakeMessage): SseEvent[] {
  const startUsage = { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) };
  const events: SseEvent[] = [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: startUsage } } },
  ];
  const ping: SseEvent = { event: 'ping', data: { type: 'ping' } };
  message.content.forEach((block, index) => {
    const own = blockEvents(block, index);
    // The real API pings once, right after the first content_block_start.
    events.push(...(index === 0 ? [own[0], ping, ...own.slice(1)] : own));
  });
  if (message.content.length === 0) events.push(ping);
  events.push(
    {
      event: 'message_delta',
      // Current API versions repeat the cumulative input counters here; the SDK overwrites, never adds.
      data: { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { ...message.usage } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

function frame(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function flush(res: ServerResponse, text: string | Uint8Array): Promise<void> {
  return new Promise(resolve => res.write(text, () => resolve()));
}

export interface StreamOptions {
  delayMs: number;
  /** Cut the connection once this many characters of text deltas have been sent. */
  cutAfterTextChars?: number;
  /** Called right after message_start is written: the moment this request's cache writes become readable. */
  onStart(): void;
  /** Another framing of the same events (Bedrock's AWS event stream) and its content type. */
  framing?: { contentType: string; encode(event: SseEvent): Uint8Array };
}

export async function writeSse(res: ServerResponse, events: SseEvent[], options: StreamOptions): Promise<StreamOutcome> {
  let closed = false;
  res.on('close', () => {
    if (!res.writableFinished) closed = true;
  });
  res.writeHead(200, {
    'content-type': options.framing?.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': nextRequestId(),
  });
  let textSent = 0;
  let written = Promise.resolve();
  for (let i = 0; i < events.length; i++) {
    if (i > 0 && options.delayMs > 0) await sleep(options.delayMs);
    if (closed || res.destroyed) return 'aborted';
    let event = events[i];
    const delta = event.data.delta as { type?: string; text?: string } | undefined;
    if (options.cutAfterTextChars !== undefined && delta?.type === 'text_delta' && typeof delta.text === 'string') {
      const room = options.cutAfterTextChars - textSent;
      if (Array.from(delta.text).length >= room) {
        if (room > 0) {
          event = { ...event, data: { ...event.data, delta: { type: 'text_delta', text: Array.from(delta.text).slice(0, room).join('') } } };
          written = flush(res, options.framing ? options.framing.encode(event) : frame(event));
        }
        // Everything before the cut reaches the client first.
        await written;
        // A dropped connection mid-message, as a proxy or network failure would leave it.
        res.destroy();
        return 'cut';
      }
      textSent += Array.from(delta.text).length;
    }
    written = flush(res, options.framing ? options.framing.encode(event) : frame(event));
    if (event.event === 'message_start') options.onStart();
  }
  res.end();
  return 'completed';
}
