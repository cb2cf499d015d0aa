// Messages API stream events → what the editor shows: text as it arrives, each tool call once its
// input JSON is complete. Pure; errors say what went wrong in the stream.
import type { SseEvent } from './sse';

export type StreamPart =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: object };

interface OpenToolUse { id: string; name: string; json: string; input: unknown }

export class StreamError extends Error {
  constructor(message: string, readonly kind: 'api' | 'stream_cut' | 'bad_json') {
    super(message);
    this.name = 'StreamError';
  }
}

export class StreamDecoder {
  stopReason?: string;
  done = false;
  private readonly tools = new Map<number, OpenToolUse>();

  handle(sse: SseEvent): StreamPart[] {
    if (sse.event === 'ping') return [];
    let payload: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
    try {
      payload = JSON.parse(sse.data);
    } catch {
      throw new StreamError(`The model stream sent an unreadable "${sse.event}" event.`, 'bad_json');
    }
    switch (payload.type) {
      case 'content_block_start':
        return this.start(payload.index, payload.content_block);
      case 'content_block_delta':
        return this.delta(payload.index, payload.delta);
      case 'content_block_stop':
        return this.stop(payload.index);
      case 'message_delta':
        if (typeof payload.delta?.stop_reason === 'string') this.stopReason = payload.delta.stop_reason;
        return [];
      case 'message_stop':
        this.done = true;
        return [];
      case 'error':
        throw new StreamError(`The model stream failed: ${payload.error?.message ?? payload.error?.type ?? 'unknown error'}`, 'api');
      default:
        return [];
    }
  }

  /** The body ended; a stream without message_stop was cut. */
  finish(): void {
    if (!this.done) throw new StreamError('The model stream ended before the message was complete.', 'stream_cut');
  }

  private start(index: number, block: { type?: string; text?: string; id?: string; name?: string; input?: unknown } | undefined): StreamPart[] {
    if (block?.type === 'text') return block.text ? [{ type: 'text', text: block.text }] : [];
    if (block?.type === 'tool_use') {
      this.tools.set(index, { id: String(block.id), name: String(block.name), json: '', input: block.input });
    }
    return [];
  }

  private delta(index: number, delta: { type?: string; text?: string; partial_json?: string } | undefined): StreamPart[] {
    if (delta?.type === 'text_delta') return delta.text ? [{ type: 'text', text: delta.text }] : [];
    if (delta?.type === 'input_json_delta') {
      const tool = this.tools.get(index);
      if (tool) tool.json += delta.partial_json ?? '';
    }
    return [];
  }

  private stop(index: number): StreamPart[] {
    const tool = this.tools.get(index);
    if (!tool) return [];
    this.tools.delete(index);
    let input: unknown = tool.input ?? {};
    if (tool.json.trim() !== '') {
      try {
        input = JSON.parse(tool.json);
      } catch {
        throw new StreamError(`The model sent malformed input JSON for tool ${tool.name}.`, 'bad_json');
      }
    }
    const object = input && typeof input === 'object' ? (input as object) : {};
    return [{ type: 'tool_call', id: tool.id, name: tool.name, input: object }];
  }
}
