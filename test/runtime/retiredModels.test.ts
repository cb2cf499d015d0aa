// A model retired on the Claude API (src/common/models.ts `retiresOn`; Sonnet 4.5 on 2026-11-30): the fake
// answers a request to one as the API does (test/fakes/models.ts: 404 not_found_error "model: <id>"), and the
// runtime and the CLI refuse to start a chat or a fork on one, by name, rather than make a session whose every
// request fails. A chat made before the day says why its request failed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait, tournamentStart } from '../../src/common/protocol/forks';
import { modelChat } from '../../src/common/protocol/model';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { cliRunner } from './cliRunner';
import { killRuntime, TEST_KEY, useSharedHarness } from './harness';
import { say } from './script';

const RETIRED = /claude-sonnet-4-5 was retired on 2026-11-30: the Claude API refuses requests to it/;

describe('runtime: a retired model', function () {
  this.timeout(60_000);
  const h = useSharedHarness();
  beforeEach(async () => {
    h.fake.setResponder(r => say(r.rawBody.includes('<fork-boilerplate>') ? 'Scope: done.\nResult: ok.' : 'answer'));
  });

  it('the fake answers a request to it with 404 not_found_error "model: <id>", which the runtime explains', async () => {
    const result = await sendRequest(h.client.endpoint, modelChat, {
      requestId: 'r1', model: 'claude-sonnet-4-5-20250929', maxTokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    assert.equal(result.stopReason, 'error', JSON.stringify(result));
    assert.equal(h.fake.requests[0].status, 404);
    assert.equal(h.fake.requests[0].error, 'model: claude-sonnet-4-5-20250929');
    assert.match(result.error!.message, /^The API refused the request \(404\): model: claude-sonnet-4-5-20250929 claude-sonnet-4-5-20250929 was retired on 2026-11-30/);
    // A model still served goes through.
    const live = await sendRequest(h.client.endpoint, modelChat, {
      requestId: 'r2', model: 'claude-opus-4-5', maxTokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    assert.equal(live.stopReason, 'end_turn', JSON.stringify(live.error));
  });

  it('a new chat on it is refused by name before any request; a fork on it too', async () => {
    await assert.rejects(h.send('hello', { model: 'claude-sonnet-4-5' }), RETIRED);
    assert.equal(h.fake.requests.length, 0, 'nothing was sent');
    const { sessionId } = await h.send('hello');
    await assert.rejects(sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'on the old model', isolation: 'shared', model: 'claude-sonnet-4-5' }), RETIRED);
    await assert.rejects(sendRequest(h.client.endpoint, tournamentStart, { sessionId, directive: 'race', models: ['claude-sonnet-5-5', 'claude-sonnet-4-5'] }), RETIRED);
    assert.equal(h.fake.requests.length, 1, 'only the live chat\'s request');
  });

  it('a chat made on it before the day: its next request fails saying why, and it forks only onto another model', async () => {
    const { sessionId } = await h.send('hello');
    await killRuntime(h.runtimePid());
    // As if the chat had been started on Sonnet 4.5 before 2026-11-30.
    const file = path.join(h.storeDir, 'sessions', `${sessionId}.jsonl`);
    const [header, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
    assert.match(header, /"model":"claude-sonnet-5-5"/);
    fs.writeFileSync(file, [header.replace('"model":"claude-sonnet-5-5"', '"model":"claude-sonnet-4-5"'), ...rest].join('\n'));
    await h.reconnect();
    const again = await h.send('still there?', { sessionId });
    assert.equal(again.stopReason, 'error');
    assert.match(again.error!.message, RETIRED);
    await assert.rejects(sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'same model', isolation: 'shared' }), /retired on 2026-11-30.*A fork of this chat needs another model/);
    const moved = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'newer model', isolation: 'shared', model: 'claude-sonnet-5-5' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: moved.id })).state, 'completed');
  });

  it('the CLI refuses --model and --models naming it, in one line, before a runtime starts', async () => {
    const store = path.join(h.storeDir, '..', 'cli-store');
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => store });
    const chat = await cli('chat', '--cwd', h.root, '--model', 'claude-sonnet-4-5', 'hello');
    assert.equal(chat.code, 2, chat.stderr);
    assert.match(chat.stderr, /--model: claude-sonnet-4-5 was retired on 2026-11-30/);
    assert.equal(chat.stderr.trim().split('\n').length, 1, chat.stderr);
    const tournament = await cli('fork', '--session', 's-x', '--models', 'claude-sonnet-5-5,claude-opus-4-1', 'try');
    assert.equal(tournament.code, 2, tournament.stderr);
    assert.match(tournament.stderr, /--models: claude-opus-4-1 was retired on 2026-08-05/);
    assert.ok(!fs.existsSync(runtimeInfoPath(store)), 'no runtime was started for it');
  });
});
