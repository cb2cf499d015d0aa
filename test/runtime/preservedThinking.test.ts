// Today's models as the fake restates their docs (test/fakes/preservedThinking.ts): thinking blocks bound to
// model, prefix and account, the documented 400s. On each 5.5 model a chat with tools, its forks (windows,
// all, Fork from here mid-turn, another model) and a compaction mid-turn send only requests the API accepts;
// an `all` fork replays the parent's thinking byte for byte and reads its cache; the thinking text between
// tool calls streams as progress.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const isFork = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const isSummary = (r: ReceivedRequest) => r.rawBody.includes('is about to be replaced by a summary');
const directiveOf = (r: ReceivedRequest) => /DIRECTIVE: ([^\n"]*)/.exec(r.rawBody)?.[1];
const thinkingOf = (r: ReceivedRequest) => (r.body.messages as { content: { type: string }[] }[]).flatMap(m => m.content.filter(b => b.type === 'thinking'));
const readsThenAnswers = (progress: string): ScriptedTurn[] => [
  { content: [{ type: 'thinking', thinking: progress }, { type: 'tool_use', name: 'read_file', input: { path: 'notes.md' } }] },
  { content: [{ type: 'thinking', thinking: 'The file answers it.' }, { type: 'text', text: 'The word is pelican.' }] },
];

for (const model of ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5']) {
  // One runtime per model and one three-turn chat the first four tests fork from (forks leave their parent
  // as it was); the compaction test continues a chat of its own, so no test sees another's turns.
  describe(`runtime: preserved thinking on ${model}`, function () {
    this.timeout(90_000);
    let h: Harness;
    let sessionId: string;
    let parentTurns: ScriptedTurn[];
    /** The requests of the shared chat's three turns. */
    let chatRequests: ReceivedRequest[];

    /** A new three-turn chat with a read_file call each turn; returns its session id. */
    const threeTurnChat = async (): Promise<string> => {
      let id: string | undefined;
      for (let turn = 1; turn <= 3; turn++) {
        parentTurns.push(...readsThenAnswers(`Turn ${turn}: I will read notes.md first.`));
        const result = await h.send(`What is the secret word? (turn ${turn})`, id === undefined ? {} : { sessionId: id });
        id = result.sessionId;
        assert.equal(result.stopReason, 'end_turn', JSON.stringify(result.error));
      }
      return id!;
    };

    before(async () => {
      h = await startHarness({ fake: { minCacheTokens: 256 }, config: { model } });
      fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n'.repeat(40));
      parentTurns = [];
      h.fake.setResponder(r => (isSummary(r) ? say('Summary: the user asked for the word three times; it is pelican.') : isFork(r) ? say('Scope: test.\nResult: done.') : parentTurns.shift() ?? say('extra')));
      sessionId = await threeTurnChat();
      chatRequests = [...h.fake.requests];
    });
    after(() => h.dispose());

    const refused = () => h.fake.requests.filter(r => r.status !== 200).map(r => `${r.status}: ${r.error}`);
    const fork = async (directive: string, extra: Record<string, unknown> = {}) => {
      const started = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive, isolation: 'shared', ...extra });
      const done = await sendRequest(h.client.endpoint, forkWait, { forkId: started.id });
      assert.equal(done.state, 'completed', `${directive}: ${JSON.stringify(done)} / ${refused().join('; ')}`);
      return h.fake.requests.filter(r => isFork(r) && directiveOf(r) === directive);
    };

    it('a three-turn chat with tools: adaptive thinking with its text shown, every request accepted', async () => {
      assert.deepEqual(refused(), []);
      assert.equal(chatRequests.length, 6, 'two requests a turn');
      for (const r of chatRequests) {
        assert.deepEqual(r.body.thinking, { type: 'adaptive', display: 'summarized' });
        assert.equal(r.body.temperature ?? r.body.top_p ?? r.body.top_k ?? r.body.tool_choice, undefined, 'nothing the model refuses');
      }
      const progress = h.events.filter(e => e.event.type === 'thinking_delta').map(e => (e.event as { text: string }).text).join('');
      assert.match(progress, /Turn 2: I will read notes\.md first\./, 'the text between tool calls streams');
      // Each request replays every earlier thinking block: the chat only ever appends.
      const last = chatRequests.at(-1)!;
      assert.equal(thinkingOf(last).length, 5);
    });

    it('--turns 1 and --turns 2 forks leave out the window\'s thinking, bound to the longer history', async () => {
      const [one] = await fork('window one', { forkTurns: '1' });
      const [two] = await fork('window two', { forkTurns: '2' });
      assert.deepEqual(refused(), []);
      assert.equal(thinkingOf(one).length, 0);
      assert.equal(thinkingOf(two).length, 0);
    });

    it('an all fork keeps every thinking block byte for byte and reads ≥ 90% of its first request from the cache', async () => {
      const parentLast = h.fake.requests.filter(r => !isFork(r)).at(-1)!;
      const parentThinking = [...thinkingOf(parentLast), ...parentLast.response!.content.filter(b => b.type === 'thinking')];
      const [first] = await fork('all of it');
      assert.deepEqual(refused(), []);
      assert.deepEqual(thinkingOf(first), parentThinking);
      const u = first.usage!;
      const share = u.cache_read_input_tokens / (u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens);
      assert.ok(share >= 0.9, `read ${share}`);
    });

    it('Fork from here in the middle of a turn, and a fork on another model, are accepted', async () => {
      const { entries } = await h.transcript(sessionId);
      const midTurn = entries.filter(e => e.kind === 'response' && e.message.content.some(b => b.type === 'tool_use')).at(-1)!;
      const [at] = await fork('from here', { atEntryId: midTurn.id });
      assert.ok(thinkingOf(at).length > 0, 'blocks before the fork point still hold');
      const other = model === 'claude-sonnet-5-5' ? 'claude-opus-5-5' : 'claude-sonnet-5-5';
      await fork('other model', { model: other });
      assert.deepEqual(refused(), []);
    });

    it('a compaction mid-turn, a turn after it and an all fork: every request accepted', async () => {
      const own = await threeTurnChat();
      const before = h.fake.requests.filter(r => !isFork(r)).at(-1)!.usage!;
      const tokens = before.input_tokens + before.cache_read_input_tokens + before.cache_creation_input_tokens;
      // The next turn's tool result pushes the context past the threshold: it compacts between the call and the answer.
      await h.configure({ contextWindow: Math.ceil((tokens + 200) / 0.8), autoCompactAt: 0.8 });
      parentTurns.push(...readsThenAnswers('Turn 4: reading again.'), say('Turn 5 done.'));
      const turn4 = await h.send('And once more? (turn 4)', { sessionId: own });
      assert.equal(turn4.stopReason, 'end_turn', JSON.stringify(turn4.error));
      assert.ok(h.events.some(e => e.sessionId === own && e.event.type === 'compaction'), 'it compacted');
      const turn5 = await h.send('Thanks (turn 5)', { sessionId: own });
      assert.equal(turn5.stopReason, 'end_turn', JSON.stringify(turn5.error));
      await fork('after compaction', { sessionId: own });
      assert.deepEqual(refused(), []);
    });
  });
}

describe('runtime: a history damaged from outside (thinking pasted from another conversation)', function () {
  this.timeout(90_000);
  let h: Harness;
  before(async () => {
    h = await startHarness({ fake: { minCacheTokens: 256 }, config: { model: 'claude-sonnet-5-5' } });
    h.fake.setResponder(() => ({ content: [{ type: 'thinking', thinking: 'Same words in both chats.' }, { type: 'text', text: 'answered' }] }));
  });
  after(() => h.dispose());

  it('the API refuses it once; the request goes again with drop_block and its header, the drop is recorded, and later requests keep drop_block', async () => {
    await h.send('alpha: first question');
    const beta = (await h.send('beta: first question')).sessionId;
    const alphaBlock = h.fake.requests.find(r => r.rawBody.includes('alpha: first'))!.response!.content.find(b => b.type === 'thinking')!;
    await killRuntime(h.runtimePid());
    // beta's transcript now holds alpha's block (same text, a signature bound to alpha's prefix); beta's binding stays.
    const file = findFile(h.storeDir, `${beta}.jsonl`);
    const text = fs.readFileSync(file, 'utf8');
    const betaSignature = /"signature":"(fkb1\.[^"]+)"/.exec(text)![1];
    assert.ok(alphaBlock.type === 'thinking' && alphaBlock.signature !== betaSignature);
    fs.writeFileSync(file, text.replace(betaSignature, (alphaBlock as { signature: string }).signature));
    await h.reconnect();
    const sent = h.fake.requests.length;
    const second = await h.send('beta: second question', { sessionId: beta });
    assert.equal(second.stopReason, 'end_turn', JSON.stringify(second.error));
    const [refusedOnce, retried] = h.fake.requests.slice(sent);
    assert.equal(refusedOnce.status, 400);
    assert.match(refusedOnce.error ?? '', /bound to a different conversation/);
    assert.equal(refusedOnce.body.thinking.block_binding, undefined, 'the engine vouched for the block the first time');
    assert.equal(retried.status, 200, retried.error);
    assert.deepEqual(retried.body.thinking.block_binding, { prefix_mismatch_behavior: 'drop_block' });
    assert.match(String(retried.headers['anthropic-beta']), /thinking-binding-controls-2026-08-01/);
    const { entries } = await h.transcript(beta);
    const answer = entries.at(-1)!;
    assert.deepEqual(answer.inputTransformations, [{ type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' }]);
    const third = await h.send('beta: third question', { sessionId: beta });
    assert.equal(third.stopReason, 'end_turn');
    const last = h.fake.requests.at(-1)!;
    assert.equal(last.status, 200);
    assert.deepEqual(last.body.thinking.block_binding, { prefix_mismatch_behavior: 'drop_block' }, 'the choice stays with the session');
  });
});

function findFile(dir: string, name: string): string {
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) {
      const found = findFile(full, name);
      if (found) return found;
    } else if (item.name === name) {
      return full;
    }
  }
  return '';
}
