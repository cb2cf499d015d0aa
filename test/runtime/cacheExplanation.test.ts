// One explanation per request: `transcript --fork F --cache` and `list --json`'s cacheSteps say the same about
// a fork's first request, also after its parent left memory (the explorer then had no parent to compare with,
// and the two surfaces disagreed: "first request, 0/N" against "extended, M/N"). Both are checked against the
// request bodies the fake actually received.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, ReceivedRequest } from '../fakes/anthropicServer';
import { cliRunner, jsonLines, lastJson, stopStoreRuntime } from './cliRunner';
import { say } from './script';

/** Every prompt block of a received body in prefix order (tools, system, messages), cache_control left out. */
function blocksOf(request: ReceivedRequest): string[] {
  const body = JSON.parse(request.rawBody) as { tools?: unknown[]; system?: unknown[] | string; messages: { role: string; content: unknown[] | string }[] };
  const strip = (block: unknown): unknown => {
    if (!block || typeof block !== 'object' || Array.isArray(block)) return block;
    const { cache_control: _cc, ...rest } = block as Record<string, unknown>;
    if (Array.isArray(rest.content)) rest.content = rest.content.map(strip);
    return rest;
  };
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system ?? [];
  const messages = body.messages.flatMap(m => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).map(b => `${m.role}:${JSON.stringify(strip(b))}`));
  return [...(body.tools ?? []).map(t => `tool:${JSON.stringify(strip(t))}`), ...system.map(b => `system:${JSON.stringify(strip(b))}`), ...messages];
}

describe('cli: one cache explanation for a fork\'s first request', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let store: string;
  let cwd: string;
  const cli = cliRunner({ apiKey: 'k-cache', baseUrl: () => fake.url, store: () => store, extra: () => ({ FORK_AGENTS_EVICT_IDLE_MS: '200' }) });

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-cache' });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cache-'));
    store = path.join(base, 'store');
    cwd = path.join(base, 'work');
    fs.mkdirSync(cwd);
  });
  afterEach(async () => {
    stopStoreRuntime(store);
    await fake.close();
  });

  /** Resolves once the runtime log has `line` (a watch on its folder, no polling sleeps). */
  const logHas = (line: string) => new Promise<void>(resolve => {
    const log = runtimeLogPath(store);
    const check = () => {
      if (!(fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes(line))) return;
      watcher.close();
      resolve();
    };
    const watcher = fs.watch(path.dirname(log), check);
    check();
  });

  it('transcript --cache and list --json give the same cause and counts, matching what the fake received, after the parent left memory', async () => {
    const isFork = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
    fake.setResponder(r => (isFork(r) ? say('Scope: the notes.\nResult: read.') : say(`noted: ${'the parent answers at length. '.repeat(200)}`)));
    const chat = await cli('chat', '--cwd', cwd, '--json', `remember this: ${'a long context line. '.repeat(400)}`);
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);
    const fork = await cli('fork', '--cwd', cwd, '--session', sessionId, '--turns', 'all', '--wait', '--json', 'summarise the notes');
    assert.equal(fork.code, 0, fork.stderr);
    const { forkId } = lastJson(fork);

    // What the fake saw: the parent's request and the fork's first.
    const parentRequest = fake.requests.filter(r => !isFork(r)).at(-1)!;
    const forkRequest = fake.requests.find(isFork)!;
    const parentBlocks = blocksOf(parentRequest);
    const forkBlocks = blocksOf(forkRequest);
    let shared = 0;
    while (shared < parentBlocks.length && shared < forkBlocks.length && parentBlocks[shared] === forkBlocks[shared]) shared++;
    assert.ok(shared > 0 && shared < forkBlocks.length, `the fork's first request extends its parent's (${shared}/${forkBlocks.length})`);

    // The parent leaves memory; the explanation must not depend on whether it is loaded.
    await logHas(`session ${sessionId} left memory (idle)`);
    const cache = await cli('transcript', '--fork', forkId, '--cache', '--json');
    assert.equal(cache.code, 0, cache.stderr);
    const fromTranscript = jsonLines(cache)[0];
    const list = await cli('list', '--json');
    assert.equal(list.code, 0, list.stderr);
    const row = jsonLines(list).find(r => r.type === 'fork' && r.id === forkId);
    const fromList = row.cacheSteps[0];

    const said = (step: { cause: string; detail: string; matchedBlocks: number; totalBlocks: number; baseline?: unknown }) =>
      ({ cause: step.cause, detail: step.detail, matchedBlocks: step.matchedBlocks, totalBlocks: step.totalBlocks, baseline: step.baseline });
    assert.deepEqual(said(fromTranscript), said(fromList), 'both surfaces give one explanation');
    assert.equal(fromTranscript.cause, 'extended');
    assert.equal(fromTranscript.matchedBlocks, shared, 'blocks shared, as the fake received them');
    assert.equal(fromTranscript.totalBlocks, forkBlocks.length);
    assert.deepEqual(fromTranscript.baseline, { sessionId, index: 0 });
    // The text form says the same counts.
    const text = await cli('transcript', '--fork', forkId, '--cache');
    assert.match(text.stdout.split('\n')[0], new RegExp(`\\(${shared}/${forkBlocks.length} blocks shared\\)`));
  });
});
