// Bad input and failures: each gets a clear error and loses nothing committed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { RuntimeErrorCode, sessionCancel } from '../../src/common/protocol/runtime';
import { buildRequestBody } from '../../src/runtime/agent/request';
import { killRuntime, useSharedHarness } from './harness';
import { call, say } from './script';

describe('runtime: faults', function () {
  this.timeout(30_000);
  const h = useSharedHarness();


  it('cancels a running turn: the tool process dies and every tool call gets a result', async () => {
    h.fake.enqueue(call(['bash', { command: 'sleep 30' }]));
    const pending = h.send('wait a long time');
    await h.waitForEvent(e => e.type === 'tool_call');
    const sessionId = h.events.find(e => e.event.type === 'turn_start')!.sessionId;
    assert.deepEqual(await sendRequest(h.client.endpoint, sessionCancel, { sessionId }), { cancelled: true });
    const result = await pending;
    assert.equal(result.stopReason, 'cancelled');
    const { entries } = await h.transcript(result.sessionId);
    assert.deepEqual(entries.map(e => e.kind), ['startup', 'prompt', 'response', 'tool_results']);
    const block = entries[3].message.content[0];
    assert.ok(block.type === 'tool_result' && block.is_error === true);
    h.fake.enqueue(say('still here'));
    const next = await h.send('are you there?', { sessionId: result.sessionId });
    assert.equal(next.text, 'still here', 'the transcript stayed valid for the next request');
  });

  it('waits out a 429 with retry-after and then succeeds', async () => {
    h.fake.enqueue({ fault: 'rate_limit', retryAfterSeconds: 0.05 }, say('after the limit'));
    const result = await h.send('hello');
    assert.equal(result.text, 'after the limit');
    const retry = h.events.find(e => e.event.type === 'retry')!.event;
    assert.ok(retry.type === 'retry' && retry.error.kind === 'rate_limit' && retry.delayMs === 50);
  });

  it('keeps the transcript valid when the stream is cut mid-message', async () => {
    h.fake.enqueue({ fault: 'cut_stream', afterTextChars: 30 });
    const cut = await h.send('tell me a story');
    assert.equal(cut.stopReason, 'error');
    assert.equal(cut.error?.kind, 'stream_cut');
    assert.match(cut.error!.message, /cut mid-message/);
    const { entries } = await h.transcript(cut.sessionId);
    assert.deepEqual(entries.map(e => e.kind), ['startup', 'prompt'], 'no partial response was committed');
    h.fake.enqueue(say('the whole story'));
    const again = await h.send('try again', { sessionId: cut.sessionId });
    assert.equal(again.text, 'the whole story');
    assert.equal(h.fake.requests[h.fake.requests.length - 1].outcome, 'completed');
  });

  it('explains a rejected API key without retrying', async () => {
    await h.configure({ apiKey: 'sk-wrong' });
    const result = await h.send('hello');
    assert.equal(result.error?.kind, 'auth');
    assert.match(result.error!.message, /API key was rejected \(401\)/);
    assert.equal(h.fake.requests.length, 1);
  });

  it('explains an unreachable endpoint', async () => {
    const port = await closedPort();
    await h.configure({ baseUrl: `http://127.0.0.1:${port}` });
    const result = await h.send('hello');
    assert.equal(result.error?.kind, 'network');
    assert.match(result.error!.message, /Could not reach the model endpoint/);
  });

  it('refuses to start a turn without an API key, committing nothing', async () => {
    await h.configure({ apiKey: '' });
    await assert.rejects(h.send('hello'), (error: { code?: number; message: string }) =>
      error.code === RuntimeErrorCode.missingKey && /Set Anthropic API Key/.test(error.message));
  });

  it('survives a runtime restart: the session reloads and continues with its whole history', async () => {
    h.fake.enqueue(call(['list_files', {}]), say('one file'));
    const first = await h.send('what is here?');
    const before = await h.transcript(first.sessionId);
    const pid = h.runtimePid();
    await killRuntime(pid);
    await h.reconnect();
    assert.notEqual(h.runtimePid(), pid, 'a new runtime serves the store');
    const after = await h.transcript(first.sessionId);
    assert.deepEqual(after.entries, before.entries);
    h.fake.enqueue(say('still one file'));
    await h.send('and now?', { sessionId: first.sessionId, afterEntryId: first.lastEntryId });
    const expected = buildRequestBody(after.header, after.entries).messages;
    const sent = h.fake.requests[h.fake.requests.length - 1].body.messages;
    assert.deepEqual(strip(sent.slice(0, expected.length)), strip(expected), 'the request after the restart carries the whole history');
  });

  it('ignores a torn last line of a transcript and appends cleanly after it', async () => {
    h.fake.enqueue(say('answer one'));
    const first = await h.send('question one');
    const file = `${h.storeDir}/sessions/${first.sessionId}.jsonl`;
    await killRuntime(h.runtimePid());
    fs.appendFileSync(file, '{"type":"entry","entry":{"id":"e-torn","kind":"resp');
    await h.reconnect();
    const { entries } = await h.transcript(first.sessionId);
    assert.deepEqual(entries.map(e => e.kind), ['startup', 'prompt', 'response']);
    h.fake.enqueue(say('answer two'));
    await h.send('question two', { sessionId: first.sessionId });
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.ok(lines.every(line => JSON.parse(line)), 'every line on disk is whole JSON');
    assert.ok(!fs.readFileSync(file, 'utf8').includes('e-torn'));
  });
});

function strip(messages: unknown): unknown {
  return JSON.parse(JSON.stringify(messages, (key, value) => (key === 'cache_control' ? undefined : value)));
}

function closedPort(): Promise<number> {
  return new Promise(resolve => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
