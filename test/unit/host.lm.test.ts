import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessagesApiError, streamMessages } from '../../src/host/lm/messagesApi';
import { SseParser } from '../../src/host/lm/sse';
import { StreamDecoder, StreamError } from '../../src/host/lm/streamDecoder';
import type { StreamPart } from '../../src/host/lm/streamDecoder';
import { buildMessagesBody, toAnthropicMessages } from '../../src/host/lm/toAnthropic';

const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const TURN = [
  sse('message_start', { type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 3, output_tokens: 0 } } }),
  ': keep-alive comment\n\n',
  sse('ping', { type: 'ping' }),
  sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } }),
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
  sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'tu1', name: 'read', input: {} } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"a.txt"}' } }),
  sse('content_block_stop', { type: 'content_block_stop', index: 1 }),
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
  sse('message_stop', { type: 'message_stop' }),
].join('');
const EXPECTED: StreamPart[] = [
  { type: 'text', text: 'Hel' },
  { type: 'text', text: 'lo' },
  { type: 'tool_call', id: 'tu1', name: 'read', input: { path: 'a.txt' } },
];

function decodeAll(chunks: string[]): { parts: StreamPart[]; decoder: StreamDecoder } {
  const parser = new SseParser();
  const decoder = new StreamDecoder();
  const parts: StreamPart[] = [];
  for (const chunk of chunks) for (const event of parser.push(chunk)) parts.push(...decoder.handle(event));
  for (const event of parser.end()) parts.push(...decoder.handle(event));
  return { parts, decoder };
}

describe('host LM: SSE stream decoding', () => {
  it('decodes a text + tool_use turn however the bytes are split, LF or CRLF', () => {
    for (const text of [TURN, TURN.replace(/\n/g, '\r\n')]) {
      for (const size of [1, 7, 64, text.length]) {
        const chunks: string[] = [];
        for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
        const { parts, decoder } = decodeAll(chunks);
        assert.deepEqual(parts, EXPECTED, `chunk size ${size}`);
        assert.equal(decoder.stopReason, 'tool_use');
        decoder.finish();
      }
    }
  });

  it('joins multi-line data and keeps a last event without its blank line', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('event: a\ndata: 1\ndata: 2\n\ndata: x'), [{ event: 'a', data: '1\n2' }]);
    assert.deepEqual(parser.end(), [{ event: 'message', data: 'x' }]);
  });

  it('reports a stream cut before message_stop, an error event, and malformed tool JSON', () => {
    const cut = decodeAll([TURN.slice(0, TURN.indexOf('event: message_delta'))]);
    assert.throws(() => cut.decoder.finish(), (e: unknown) => e instanceof StreamError && e.kind === 'stream_cut');
    assert.throws(() => decodeAll([sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })]), /The model stream failed: Overloaded/);
    const badJson = [
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'x', input: {} } }),
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    ];
    assert.throws(() => decodeAll(badJson), /malformed input JSON for tool x/);
  });
});

describe('host LM: VS Code messages → Messages API', () => {
  const text = (value: string) => ({ value });
  const call = (callId: string, name: string, input: object) => ({ callId, name, input });
  const result = (callId: string, value: string) => ({ callId, content: [text(value)] });

  it('converts roles, tool calls and results; system text goes to `system`', () => {
    const out = toAnthropicMessages([
      { role: 3, content: [text('Be brief.')] },
      { role: 1, content: [text('List files')] },
      { role: 2, content: [text('Looking.'), call('c1', 'list', { dir: '.' })] },
      { role: 1, content: [text('(also this)'), result('c1', 'a.txt\nb.txt')] },
      { role: 2, content: [text('Two files.')] },
    ]);
    assert.equal(out.system, 'Be brief.');
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'List files' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'c1', name: 'list', input: { dir: '.' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt\nb.txt' }, { type: 'text', text: '(also this)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
    ]);
  });

  it('merges same-role neighbours, drops empty and unknown parts, answers unanswered tool calls', () => {
    const out = toAnthropicMessages([
      { role: 1, content: [text('a')] },
      { role: 1, content: [text('  '), { mimeType: 'image/png', data: new Uint8Array(1) }, text('b')] },
      { role: 2, content: [{ value: 'private reasoning', id: undefined, metadata: undefined }] },
      { role: 2, content: [call('c9', 'bash', { command: 'ls' })] },
    ]);
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c9', name: 'bash', input: { command: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c9', content: 'No result: the call did not run.', is_error: true }] },
    ]);
    assert.equal(out.system, undefined);
  });

  it('builds a streaming body with tools; Required tool mode becomes tool_choice any', () => {
    const body = buildMessagesBody([{ role: 1, content: [text('hi')] }], {
      model: 'claude-x', maxTokens: 100, toolRequired: true,
      tools: [{ name: 'a', description: 'A', inputSchema: { type: 'object', properties: { p: { type: 'string' } } } }, { name: 'b', description: 'B' }],
    });
    assert.deepEqual(body, {
      model: 'claude-x', max_tokens: 100, stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [
        { name: 'a', description: 'A', input_schema: { type: 'object', properties: { p: { type: 'string' } } } },
        { name: 'b', description: 'B', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any' },
    });
    assert.equal('tools' in buildMessagesBody([], { model: 'm', maxTokens: 1 }), false);
  });
});

describe('host LM: a streaming call over HTTP', () => {
  let server: http.Server;
  let url: string;
  let reply: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', chunk => (body += chunk));
      req.on('end', () => reply(req, body, res));
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
  });
  after(() => new Promise<void>(resolve => server.close(() => resolve())));

  it('sends the key and version headers and streams the parts', async () => {
    let seen: { key?: string; version?: string; body?: unknown } = {};
    reply = (req, body, res) => {
      seen = { key: req.headers['x-api-key'] as string, version: req.headers['anthropic-version'] as string, body: JSON.parse(body) };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Dribble the stream to exercise chunk boundaries over the wire.
      const pieces = TURN.match(/[\s\S]{1,50}/g) ?? [];
      const next = () => (pieces.length ? res.write(pieces.shift(), () => setImmediate(next)) : res.end());
      next();
    };
    const parts: StreamPart[] = [];
    const done = await streamMessages({ url, apiKey: 'sk-test', body: { model: 'm' }, signal: new AbortController().signal, onPart: p => parts.push(p) });
    assert.deepEqual(parts, EXPECTED);
    assert.equal(done.stopReason, 'tool_use');
    assert.deepEqual(seen, { key: 'sk-test', version: '2023-06-01', body: { model: 'm' } });
  });

  it('turns HTTP errors and unreachable endpoints into clear errors', async () => {
    reply = (_req, _body, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    };
    await assert.rejects(streamMessages({ url, apiKey: 'bad', body: {}, signal: new AbortController().signal, onPart: () => undefined }),
      (e: unknown) => e instanceof MessagesApiError && e.status === 401 && /rejected the API key \(401\): invalid x-api-key/.test(e.message));
    await assert.rejects(streamMessages({ url: 'http://127.0.0.1:9/v1/messages', apiKey: 'k', body: {}, signal: new AbortController().signal, onPart: () => undefined }),
      /Could not reach the model endpoint http:\/\/127\.0\.0\.1:9/);
  });
});
