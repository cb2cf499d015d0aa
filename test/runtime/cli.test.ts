// The headless CLI as a user runs it: a real process against the runtime and the fake server.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRunner, jsonLines, lastJson, stopStoreRuntime } from './cliRunner';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { say } from './script';

describe('cli: fork-agents', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  let store: string;
  let cwd: string;

  const cli = cliRunner({ apiKey: 'k-cli', baseUrl: () => fake.url, store: () => store });

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-cli' });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cli-'));
    store = path.join(base, 'store');
    cwd = path.join(base, 'work');
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(cwd, 'README.md'), '# cli sample\n');
  });
  afterEach(async () => {
    stopStoreRuntime(store);
    await fake.close();
  });

  it('chats, forks with --wait, continues the fork with send, lists and prints transcripts', async () => {
    fake.setResponder(r => (r.rawBody.includes('<fork-boilerplate>') ? say(`Scope: fork.\nResult: ${r.body.messages.length} messages.`) : say('parent answer')));
    const chat = await cli('chat', '--cwd', cwd, '--json', 'hello there');
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);
    assert.match(sessionId, /^s-/);
    const fork = await cli('fork', '--cwd', cwd, '--session', sessionId, '--turns', '1', '--wait', '--json', 'summarise');
    assert.equal(fork.code, 0, fork.stderr);
    const forked = lastJson(fork);
    assert.match(forked.forkId, /^f-/);
    assert.match(forked.report, /^Scope: fork\./);
    const sent = await cli('send', '--cwd', cwd, '--fork', forked.forkId, '--wait', '--json', 'once more');
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(lastJson(sent).report, /Scope: fork/);
    const list = await cli('list', '--json');
    const rows = jsonLines(list);
    assert.deepEqual(rows.map(r => r.type), ['session', 'fork', 'store']);
    assert.equal(rows[1].state, 'completed');
    // The store's size on disk ends the listing: two session files (chat and fork), no segment yet (a short chat).
    assert.equal(rows[2].sessions, 2);
    assert.equal(rows[2].bytes, rows[2].sessionBytes + rows[2].segmentBytes);
    const transcript = await cli('transcript', '--fork', forked.forkId);
    assert.equal(transcript.code, 0);
    assert.match(transcript.stdout, /DIRECTIVE: summarise/);
  });

  it('--thinking-budget and --cache-ttl fix a chat\'s settings, which its fork keeps; chat --session on a fork is refused', async () => {
    fake.setResponder(r => (r.rawBody.includes('<fork-boilerplate>') ? say('Scope: fork.') : say('parent answer')));
    // Budgets are for models that take them (a 5.x model is refused at start: see below).
    const chat = await cli('chat', '--cwd', cwd, '--model', 'claude-haiku-4-5', '--thinking-budget', '2048', '--cache-ttl', '1h', '--json', 'think first');
    assert.equal(chat.code, 0, chat.stderr);
    const fork = await cli('fork', '--cwd', cwd, '--session', lastJson(chat).sessionId, '--isolation', 'shared', '--wait', '--json', 'inherit');
    assert.equal(fork.code, 0, fork.stderr);
    const forkRequest = fake.requests.find(r => r.rawBody.includes('DIRECTIVE: inherit'))!;
    assert.deepEqual(forkRequest.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(forkRequest.body.thinking, fake.requests[0].body.thinking);
    assert.ok(forkRequest.rawBody.includes('"ttl":"1h"') && !forkRequest.rawBody.match(/"cache_control":\{"type":"ephemeral"\}/), 'every breakpoint has the parent\'s 1h TTL');
    const before = fake.requests.length;
    const asParent = await cli('chat', '--cwd', cwd, '--session', lastJson(fork).forkId, 'run as a parent');
    assert.notEqual(asParent.code, 0);
    assert.match(asParent.stderr, /is a fork: continue it with fork\/send \(`fork-agents send --fork/);
    assert.equal(fake.requests.length, before, 'nothing was sent');
    const sent = fake.requests.length;
    const budgetOn55 = await cli('chat', '--cwd', cwd, '--model', 'claude-sonnet-5-5', '--thinking-budget', '2048', 'x');
    assert.equal(budgetOn55.code, 2, budgetOn55.stderr);
    assert.match(budgetOn55.stderr, /claude-sonnet-5-5 takes no thinking budget .*--effort/);
    assert.equal(fake.requests.length, sent, 'refused before anything was sent');
    const effort = await cli('chat', '--cwd', cwd, '--model', 'claude-opus-5-5', '--effort', 'low', '--json', 'quick');
    assert.equal(effort.code, 0, effort.stderr);
    assert.deepEqual(fake.requests.at(-1)!.body.output_config, { effort: 'low' });
  });

  it('exits 2 with a one-line reason on bad input, and on a session the runtime does not know', async () => {
    // The checks themselves are unit tests (test/unit/cli.args.test.ts); here, what the process makes of them.
    const badTurns = await cli('fork', '--session', 's-00000000-0000', '--turns', '1.5', 'x');
    assert.equal(badTurns.code, 2);
    assert.match(badTurns.stderr, /^fork-agents: --turns: Invalid turn count "1\.5": use "all" or a positive whole number such as 3\.$/m);
    assert.equal(badTurns.stderr.trim().split('\n').length, 1);
    const unknownSession = await cli('fork', '--session', 's-00000000-0000-0000', 'x');
    assert.equal(unknownSession.code, 2);
    assert.match(unknownSession.stderr, /no session with id/);
  });

  it('exits 1 with the reason when the API key is wrong', async () => {
    fake.setApiKey('another-key');
    const run = await cli('chat', '--cwd', cwd, 'hello');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /API key was rejected/);
  });
});
