// The key never reaches a log (docs/design.md §6). With the language client's trace at verbose, the real
// vscode-jsonrpc tracer prints the parameters of runtime/configure (the key, a Vertex token, MCP servers' env
// and headers) and initialize (the token); the trace channel blanks them.
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StreamMessageReader, StreamMessageWriter, Trace, createMessageConnection } from 'vscode-jsonrpc/node';
import { redactingTraceChannel } from '../../src/host/traceRedaction';

describe('host trace redaction', () => {
  for (const trace of [Trace.Verbose, Trace.Compact]) {
    it(`keeps the key, the token and MCP env/headers out of a ${Trace.toString(trace)} trace`, async () => {
      const toServer = new PassThrough();
      const toClient = new PassThrough();
      const server = createMessageConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
      const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
      const received: unknown[] = [];
      server.onRequest('runtime/configure', params => {
        received.push(params);
        return { pid: 1 };
      });
      server.onRequest('initialize', params => {
        received.push(params);
        return { capabilities: {} };
      });
      server.listen();
      client.listen();
      const lines: string[] = [];
      const channel = redactingTraceChannel({ trace: (message: string) => void lines.push(message), name: 'Fork Agents' });
      // The language client's tracer writes message and data into the trace channel the same way.
      await client.trace(trace, { log: (message: string, data?: string) => channel.trace(data ? `${message}\n${data}` : message) });
      const key = 'sk-ant-api03-SECRET"with\\"quote';
      await client.sendRequest('initialize', { initializationOptions: { protocolVersion: 3, clientName: 'vscode', token: 'a'.repeat(64) } });
      await client.sendRequest('runtime/configure', {
        apiKey: key, baseUrl: 'http://x', approvalMode: 'ask',
        vertex: { projectId: 'proj', accessToken: 'ya29.VERTEXSECRET' },
        mcpServers: [
          { name: 'gh', type: 'http', url: 'https://mcp.example', headers: { Authorization: 'Bearer HEADERSECRET}"x' } },
          { name: 'db', type: 'stdio', command: 'db-mcp', env: { DB_PASSWORD: 'ENVSECRET', EMPTY: '' } },
        ],
      });
      const text = lines.join('\n');
      assert.equal((received[1] as { apiKey: string }).apiKey, key, 'the runtime still gets the key');
      assert.match(text, /Sending request 'runtime\/configure/);
      assert.match(text, /"approvalMode": ?"ask"/, 'the rest of the parameters are still traced');
      assert.match(text, /"apiKey": ?"\[redacted\]"/);
      assert.match(text, /"token": ?"\[redacted\]"/);
      assert.match(text, /"accessToken": ?"\[redacted\]"/);
      assert.match(text, /"headers": ?"\[redacted\]"/);
      assert.match(text, /"env": ?"\[redacted\]"/);
      assert.match(text, /"command": ?"db-mcp"/, 'the rest of an MCP server is still traced');
      assert.doesNotMatch(text, /SECRET|aaaaaaaa/);
      assert.equal(channel.name, 'Fork Agents', 'everything else is the channel itself');
      client.dispose();
      server.dispose();
    });
  }
});
