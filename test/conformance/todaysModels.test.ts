// Conformance with the API's documented rules for today's models (the 5.5 family), as the fake restates
// them (test/fakes/preservedThinking.ts, cacheMinimums.ts): preserved thinking and its prefix check, adaptive
// thinking instead of budgets and of disabled thinking, no forced tool choice on Sonnet 5.5, no sampling
// parameters or prefill, the 512-token cache minimum. Each case names the docs page it restates.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { modelChat } from '../../src/common/protocol/model';
import type { ModelChatParams } from '../../src/common/protocol/model';
import { sessionCompact } from '../../src/common/protocol/runtime';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { anthropicDocs, peerCase } from './peerCase';
import { call, firstForkRequest, isForkRequest, say, startFork, startPeerHarness, tag, waitFork } from './peerHarness';
import type { Harness } from './peerHarness';

const PRESERVED = 'build-with-claude/preserved-thinking';
const PREFIX_CHECKS = 'build-with-claude/preserved-thinking/prefix-checks';
const SONNET_55 = 'models/sonnet-5-5/whats-new-sonnet-5-5';
const HAIKU_55 = 'models/haiku-5-5/migration-guide';

interface WireBlock { type: string; thinking?: string; signature?: string }
const thinkingOf = (r: ReceivedRequest): WireBlock[] =>
  (r.body.messages as { content: WireBlock[] }[]).flatMap(m => m.content.filter(b => b.type === 'thinking' || b.type === 'redacted_thinking'));
const isSummaryRequest = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');
const refused = (h: Harness) => h.fake.requests.filter(r => r.status !== 200).map(r => `${r.status}: ${r.error}`);

describe('conformance: today\'s models as their docs state them', function () {
  this.timeout(60_000);
  let h: Harness;
  let sessionId: string;
  const t = tag();
  /** The parent's requests, in order (its forks' and summaries' left out). */
  const parentRequests = () => h.fake.requests.filter(r => !isForkRequest(r) && !isSummaryRequest(r) && r.rawBody.includes(t));

  before(async () => {
    h = await startPeerHarness({ config: { model: 'claude-sonnet-5-5', contextWindow: 1_000_000 } });
    fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n');
    h.fake.setResponder(r => {
      if (isSummaryRequest(r)) return say(`SUMMARY ${t}: the word was asked for twice; it is pelican.`);
      if (isForkRequest(r)) return say('Scope: models.\nResult: done.');
      // Each turn reads the file, thinking before the call and before the answer.
      const lastUser = r.body.messages.at(-1).content as { type: string }[];
      if (lastUser.some(b => b.type === 'tool_result')) return { content: [{ type: 'thinking', thinking: 'The file answers it.' }, { type: 'text', text: `${t} pelican` }] };
      const turn: ScriptedTurn = call(['read_file', { path: 'notes.md' }]);
      return { content: [{ type: 'thinking', thinking: 'I will read notes.md first.' }, ...turn.content] };
    });
    for (let turn = 1; turn <= 3; turn++) {
      const sent = await h.send(`${t} what is the word? (${turn})`, turn === 1 ? {} : { sessionId });
      sessionId = sent.sessionId;
      assert.equal(sent.stopReason, 'end_turn', JSON.stringify(sent.error));
    }
  });
  after(() => h.dispose());

  const fork = async (directive: string, extra: Record<string, unknown> = {}) => {
    const started = await startFork(h, { sessionId, directive: `${t} ${directive}`, ...extra });
    const done = await waitFork(h, started.id);
    assert.equal(done.state, 'completed', `${JSON.stringify(done.error)} / ${refused(h).join('; ')}`);
    return firstForkRequest(h, `${t} ${directive}`);
  };

  peerCase({
    verdict: 'same',
    title: 'a chat only appends: each request replays every thinking block it was answered with, and the API accepts each',
    sources: [anthropicDocs(PRESERVED, 'Assistant turns go back exactly as returned, thinking blocks included')],
  }, async () => {
    const requests = parentRequests();
    assert.deepEqual(refused(h), []);
    const last = requests.at(-1)!;
    const answered = requests.slice(0, -1).flatMap(r => r.response!.content.filter(b => b.type === 'thinking'));
    assert.ok(answered.length >= 5, 'the parent was answered with thinking blocks');
    assert.deepEqual(thinkingOf(last), answered, 'byte for byte, in order');
    assert.ok(requests.every(r => r.body.thinking?.block_binding === undefined), 'no drop_block: the history was never damaged');
  });

  peerCase({
    verdict: 'same',
    title: 'a numeric window changes the prefix before its thinking blocks: the fork leaves them out rather than being refused',
    sources: [
      anthropicDocs(PREFIX_CHECKS, 'What counts as an edit: deleting an earlier message invalidates every later thinking block'),
      anthropicDocs(PRESERVED, 'The block is bound to a different conversation (400)'),
    ],
  }, async () => {
    const request = await fork('window', { forkTurns: '1' });
    assert.equal(request.status, 200, request.error);
    assert.ok(request.rawBody.includes(`${t} what is the word? (3)`) && !request.rawBody.includes(`${t} what is the word? (1)`));
    assert.deepEqual(thinkingOf(request), [], 'every block of the window was written under the longer history');
    assert.equal(request.body.thinking?.block_binding, undefined, 'left out by the engine, not dropped by the API');
  });

  peerCase({
    verdict: 'same',
    title: 'a fork on a model that cannot read the parent\'s thinking leaves those blocks out, and is accepted',
    sources: [anthropicDocs(SONNET_55, 'Which models read Sonnet 5.5 thinking blocks'), anthropicDocs(PRESERVED, 'Switching models')],
  }, async () => {
    // Haiku 5.5 reads no other model's blocks (fake: preservedThinking.ts); Sonnet 5.5's would be dropped.
    const request = await fork('other model', { model: 'claude-haiku-5-5' });
    assert.equal(request.status, 200, request.error);
    assert.equal(request.body.model, 'claude-haiku-5-5');
    assert.deepEqual(thinkingOf(request), []);
    assert.deepEqual(request.binding?.transformations ?? [], [], 'nothing for the API to drop');
  });

  peerCase({
    verdict: 'same',
    title: 'after a compaction, the next turn and an `all` fork are accepted, and the fork keeps the parent\'s thinking byte for byte',
    sources: [anthropicDocs(PRESERVED, 'Compaction: the summary replaces the messages before the kept turns')],
  }, async () => {
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    const sent = await h.send(`${t} what is the word? (4)`, { sessionId });
    assert.equal(sent.stopReason, 'end_turn', JSON.stringify(sent.error));
    const request = await fork('after compaction');
    assert.deepEqual(refused(h), []);
    const parentLast = parentRequests().at(-1)!;
    assert.ok(parentLast.rawBody.includes(`SUMMARY ${t}`), 'the parent compacted');
    const parentThinking = [...thinkingOf(parentLast), ...parentLast.response!.content.filter(b => b.type === 'thinking')];
    assert.ok(parentThinking.length > 0);
    assert.deepEqual(thinkingOf(request), parentThinking, 'the `all` fork keeps the parent\'s blocks byte for byte');
  });

  peerCase({
    verdict: 'same',
    title: 'thinking is adaptive on every request of a 5.5 model — never a budget, never disabled',
    sources: [anthropicDocs(SONNET_55, 'budget_tokens and thinking.type "disabled" are refused with 400'), anthropicDocs(HAIKU_55, 'Thinking')],
  }, async () => {
    const mine = h.fake.requests.filter(r => r.rawBody.includes(t) && r.body.model !== 'claude-haiku-5-5');
    assert.ok(mine.length > 8);
    for (const r of mine) assert.equal(r.body.thinking?.type, 'adaptive', r.rawBody.slice(0, 200));
  });

  peerCase({
    verdict: 'same',
    title: 'no sampling parameter and no assistant prefill reach a 5.5 model: every request ends with a user message',
    sources: [anthropicDocs(HAIKU_55, 'Sampling parameters: only the defaults; prefill is refused even with thinking off')],
  }, async () => {
    const mine = h.fake.requests.filter(r => r.rawBody.includes(t));
    for (const r of mine) {
      assert.deepEqual([r.body.temperature, r.body.top_p, r.body.top_k], [undefined, undefined, undefined]);
      assert.equal(r.body.messages.at(-1).role, 'user');
    }
  });

  peerCase({
    verdict: 'same',
    title: 'a thinking budget on a 5.5 model is refused when the chat starts, naming the model and the effort setting; nothing is sent',
    sources: [anthropicDocs(SONNET_55, 'Manual extended thinking (budget_tokens) is not supported'), anthropicDocs('build-with-claude/effort', 'Effort levels')],
  }, async () => {
    const before = h.fake.requests.length;
    await h.configure({ thinkingBudgetTokens: 2048 });
    try {
      await assert.rejects(h.send(`${t} with a budget`), /claude-sonnet-5-5 takes no thinking budget.*fork\.effort/);
    } finally {
      await h.configure({ thinkingBudgetTokens: 0 });
    }
    assert.equal(h.fake.requests.length, before);
  });

  const tools = [{ name: 'list', description: 'List a folder', input_schema: { type: 'object' as const, properties: { dir: { type: 'string' } } } }];
  const chat = (params: Partial<ModelChatParams> & { requestId: string; model: string }) => sendRequest(h.client.endpoint, modelChat, {
    maxTokens: 1024, system: 'You answer questions about the workspace.', messages: [{ role: 'user', content: [{ type: 'text', text: `${t} what is here?` }] }],
    ...params,
  });

  peerCase({
    verdict: 'same',
    title: 'VS Code\'s required tool mode: Sonnet 5.5 gets tool_choice "auto" and the caller a notice; Haiku 5.5, which accepts it, gets "any"',
    sources: [anthropicDocs(SONNET_55, 'tool_choice: type "tool" and "any" are not supported'), anthropicDocs(HAIKU_55, 'Forced tool use is accepted')],
  }, async () => {
    h.fake.setResponder(() => ({ content: [{ type: 'tool_use', name: 'list', input: { dir: '.' } }] }));
    const sonnet = await chat({ requestId: `${t}-s`, model: 'claude-sonnet-5-5', tools, toolChoice: 'any' });
    const sonnetRequest = h.fake.requests.at(-1)!;
    assert.equal(sonnetRequest.status, 200, sonnetRequest.error);
    assert.deepEqual(sonnetRequest.body.tool_choice, { type: 'auto' });
    assert.match(sonnet.notice ?? '', /does not accept a forced tool choice/);
    const haiku = await chat({ requestId: `${t}-h`, model: 'claude-haiku-5-5', tools, toolChoice: 'any' });
    assert.deepEqual(h.fake.requests.at(-1)!.body.tool_choice, { type: 'any' });
    assert.equal(haiku.notice, undefined);
  });
});

describe('conformance: the cache minimum of today\'s models', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    // The fake's documented minimums per model (cacheMinimums.ts), not the suite's low test minimum.
    h = await startPeerHarness({ fake: { minCacheTokens: undefined } });
    h.fake.setResponder(() => say('ok'));
  });
  after(() => h.dispose());

  peerCase({
    verdict: 'same',
    title: 'a prompt of about 700 tokens is cached on Sonnet 5.5 (512-token minimum) and not on Sonnet 5 (1,024)',
    sources: [anthropicDocs(SONNET_55, 'Prompt caching: the minimum cacheable prompt is 512 tokens (1,024 on Sonnet 5)')],
  }, async () => {
    // About 2,800 characters: some 700 tokens at the fake's four characters a token.
    const system = 'You answer questions about the workspace, briefly. '.repeat(55);
    const twice = async (model: string) => {
      for (const n of [1, 2]) {
        await sendRequest(h.client.endpoint, modelChat, { requestId: `${model}-${n}`, model, maxTokens: 512, system, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      }
      return h.fake.requests.slice(-2).map(r => r.usage!);
    };
    const [writes, reads] = await twice('claude-sonnet-5-5');
    assert.ok(writes.cache_creation_input_tokens > 0 && reads.cache_read_input_tokens > 0, JSON.stringify([writes, reads]));
    const total = reads.input_tokens + reads.cache_read_input_tokens + reads.cache_creation_input_tokens;
    assert.ok(total > 512 && total < 1024, `the prompt is between the two minimums (${total})`);
    const older = await twice('claude-sonnet-5');
    assert.ok(older.every(u => u.cache_read_input_tokens === 0 && u.cache_creation_input_tokens === 0), JSON.stringify(older));
  });

  peerCase({
    verdict: 'same',
    title: 'a prompt of about 1,500 tokens is cached on Sonnet 4.6 (1,024-token minimum) and not on Opus 4.7 (2,048)',
    // The page's "Cache limitations" list as quoted verbatim on 2026-07-28 and 2026-10-08 (read 2026-12-02):
    // "2,048 tokens for Claude Mythos Preview, Claude Opus 4.7 …", "1,024 tokens for … Claude Sonnet 4.6 …".
    sources: [{ ...anthropicDocs('build-with-claude/prompt-caching', 'Cache limitations: 2,048 tokens for Claude Opus 4.7; 1,024 for Claude Sonnet 4.6'), commit: 'read 2026-12-02' }],
  }, async () => {
    // About 6,100 characters: some 1,500 tokens at the fake's four characters a token.
    const system = 'You answer questions about the workspace, briefly. '.repeat(120);
    const twice = async (model: string) => {
      for (const n of [1, 2]) {
        await sendRequest(h.client.endpoint, modelChat, { requestId: `${model}-long-${n}`, model, maxTokens: 512, system, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      }
      return h.fake.requests.slice(-2).map(r => r.usage!);
    };
    const [writes, reads] = await twice('claude-sonnet-4-6');
    assert.ok(writes.cache_creation_input_tokens > 0 && reads.cache_read_input_tokens > 0, JSON.stringify([writes, reads]));
    const total = reads.input_tokens + reads.cache_read_input_tokens + reads.cache_creation_input_tokens;
    assert.ok(total > 1024 && total < 2048, `the prompt is between the two minimums (${total})`);
    const opus = await twice('claude-opus-4-7');
    assert.ok(opus.every(u => u.cache_read_input_tokens === 0 && u.cache_creation_input_tokens === 0), JSON.stringify(opus));
  });
});
