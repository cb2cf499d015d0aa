// The CLI's spending flags as a user runs them: fork --budget, send --budget, transcript
// --cache and the costs in list/transcript --json — a real process against the runtime and the fake.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRunner, jsonLines, lastJson, stopStoreRuntime } from './cliRunner';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { call, say } from './script';
import { usdText } from '../../src/common/pricing';

describe('cli: spending', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let store: string;
  let cwd: string;
  let forkDone = false;
  const cli = cliRunner({ apiKey: 'k-cli', baseUrl: () => fake.url, store: () => store });

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-cli', minCacheTokens: 256 });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cli-spend-'));
    store = path.join(base, 'store');
    cwd = path.join(base, 'work');
    fs.mkdirSync(cwd);
    forkDone = false;
    fake.setResponder(r => {
      if (!r.rawBody.includes('<fork-boilerplate>')) return say('parent answer');
      return forkDone ? say('Scope: listed.\nResult: done.') : call(['list_files', { path: '.' }]);
    });
  });
  afterEach(async () => {
    stopStoreRuntime(store);
    await fake.close();
  });

  it('fork --budget pauses at a token budget, send --budget continues it, transcript --cache explains each request', async () => {
    const chat = await cli('chat', '--cwd', cwd, '--json', 'hello there');
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);

    const dollars = await cli('fork', '--cwd', cwd, '--session', sessionId, '--isolation', 'shared', '--model', 'claude-future-9', '--budget', '0.25', 'list');
    assert.equal(dollars.code, 2, 'a dollar budget without a price is refused as bad input');
    assert.match(dollars.stderr, /needs a price, and none is known for claude-future-9: .*pass --prices FILE/);
    // A --budget typo is refused before anything connects: test/unit/cli.args.test.ts.

    const fork = await cli('fork', '--cwd', cwd, '--session', sessionId, '--isolation', 'shared', '--budget', '6000tokens', '--wait', '--json', 'list everything');
    assert.equal(fork.code, 1, 'a paused fork is not a success');
    const paused = lastJson(fork);
    assert.equal(paused.state, 'paused-budget');
    assert.deepEqual(paused.budget, { tokens: 6000 });
    assert.match(fork.stderr, /budget of 6000 tokens is reached.*fork-agents send --fork/);

    forkDone = true;
    const sent = await cli('send', '--cwd', cwd, '--fork', paused.forkId, '--budget', '100000tokens', '--wait', '--json');
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(lastJson(sent).state, 'completed');

    const cache = await cli('transcript', '--fork', paused.forkId, '--cache');
    assert.equal(cache.code, 0, cache.stderr);
    const lines = cache.stdout.trim().split('\n');
    assert.equal(lines.length, fake.requests.filter(r => r.rawBody.includes('<fork-boilerplate>')).length, 'one line per request');
    assert.match(lines[0], /^#1 .*\[█+.*\] read \d+ .* ✓ extended the previous request/);

    const list = await cli('list', '--json');
    const listed = jsonLines(list).find(row => row.id === paused.forkId);
    assert.equal(listed.model, 'claude-sonnet-5-5');
    assert.ok(listed.cost.usd > 0, 'the built-in table prices the default model');
    const transcript = await cli('transcript', '--fork', paused.forkId, '--json');
    const total = lastJson(transcript);
    assert.equal(total.type, 'total');
    assert.equal(total.priceFrom, 'table');
    assert.equal(total.cost.usd, listed.cost.usd, 'list and transcript show one figure');
    const text = await cli('list');
    assert.ok(text.stdout.includes(`cost ${usdText(listed.cost.usd)} (`), text.stdout);
  });

  it('--prices FILE prices the chat, and fork --budget 0.25, list and transcript agree on the fork\'s cost; a bad file exits 2', async () => {
    const prices = path.join(cwd, '..', 'prices.json');
    fs.writeFileSync(prices, JSON.stringify({ 'claude-sonnet-5-5': { input: 3, output: 15 } }));
    const chat = await cli('chat', '--cwd', cwd, '--json', '--prices', prices, 'hello there');
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);
    forkDone = true;
    const fork = await cli('fork', '--cwd', cwd, '--session', sessionId, '--isolation', 'shared', '--budget', '0.25', '--wait', '--json', '--prices', prices, 'list');
    assert.equal(fork.code, 0, fork.stderr);
    const done = lastJson(fork);
    assert.equal(done.state, 'completed');
    // $3 / $15 with Sonnet 5.5's cache ratios (writes ×1.25, reads ×0.05), by hand from what the fake reported.
    const expected = fake.requests.filter(r => r.rawBody.includes('<fork-boilerplate>'))
      .reduce((sum, r) => sum + (r.usage!.input_tokens * 3 + r.usage!.cache_creation_input_tokens * 3.75 + r.usage!.cache_read_input_tokens * 0.15 + r.usage!.output_tokens * 15) / 1e6, 0);
    assert.ok(Math.abs(done.cost.usd - expected) < 1e-12, `${done.cost.usd} ≠ ${expected}`);
    const listed = jsonLines(await cli('list', '--json', '--prices', prices)).find(row => row.id === done.forkId);
    assert.equal(listed.cost.usd, done.cost.usd);
    const total = lastJson(await cli('transcript', '--fork', done.forkId, '--json', '--prices', prices));
    assert.equal(total.priceFrom, 'setting');
    assert.equal(total.cost.usd, done.cost.usd);
    // A bad or missing --prices file: test/unit/cli.args.test.ts (checked before anything connects).
  });
});
