// The cache explorer's causes that the runtime tests do not reach (they cover tools, TTL, expiry and
// lookback): model, thinking, system prompt, messages, below the minimum — on fingerprints of real bodies.
import * as assert from 'node:assert/strict';
import { buildRequestBody } from '../../src/runtime/agent/request';
import type { MessagesRequestBody } from '../../src/runtime/model/wire';
import { explain } from '../../src/runtime/cache/explorer';
import { cacheNotes, isExpected } from '../../src/common/cacheExplorer';
import type { CacheStep } from '../../src/common/cacheExplorer';
import { fingerprint } from '../../src/runtime/cache/fingerprint';
import type { Usage } from '../../src/common/transcript';
import { Transcript, header } from './forkFixtures';

const bp = { type: 'ephemeral' as const };
const read = (n: number): Usage => ({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: n, cache_creation_input_tokens: 50 });
const body = (over: Partial<MessagesRequestBody> = {}, texts = ['hello']): MessagesRequestBody => ({
  model: 'm', max_tokens: 100,
  system: [{ type: 'text', text: 'you are helpful', cache_control: bp }],
  tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
  messages: texts.map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text, ...(i === texts.length - 1 ? { cache_control: bp } : {}) }] })),
  ...over,
});
const at = (b: MessagesRequestBody, usage: Usage, t = 0) => fingerprint(b, Date.parse('2026-12-01T10:00:00Z') + t, usage, undefined);
const base = (b: MessagesRequestBody, usage = read(0)) => ({ record: at(b, usage), sessionId: 's', index: 0 });

describe('cache explorer', () => {
  it('names a changed model, thinking setting and system prompt', () => {
    const previous = base(body());
    assert.equal(explain(at(body({ model: 'n' }, ['hello', 'a', 'q']), read(0)), previous).cause, 'model');
    assert.equal(explain(at(body({ thinking: { type: 'enabled', budget_tokens: 1024 } }, ['hello', 'a', 'q']), read(0)), previous).cause, 'thinking');
    const system = explain(at(body({ system: [{ type: 'text', text: 'you are terse', cache_control: bp }] }, ['hello', 'a', 'q']), read(0)), previous);
    assert.equal(system.cause, 'system');
    assert.equal(system.matchedBlocks, 1, 'only the tool matched');
  });

  it('extends the previous request, or names the part of the conversation where it stopped matching', () => {
    const previous = base(body({}, ['hello', 'a', 'q']), read(100));
    assert.equal(explain(at(body({}, ['hello', 'a', 'q', 'b', 'r']), read(100)), previous).cause, 'extended');
    const edited = explain(at(body({}, ['hello', 'a', 'edited']), read(0)), previous);
    assert.equal(edited.cause, 'messages');
    assert.equal(edited.detail, 'The conversation differs from the previous request from its part 3 on; what came before was read.');
    assert.doesNotMatch(edited.detail, /message block/i, 'no internal terms in what users read');
  });

  it('reads expected causes as information: the cache lifetime passed, another model, a fork of the last turns', () => {
    const usage = read(0);
    const step = (cause: CacheStep['cause'], index: number, detail = 'Why.'): CacheStep =>
      ({ index, time: '2026-12-01T00:00:00Z', usage, cause, detail, matchedBlocks: 1, totalBlocks: 3, baseline: { sessionId: 'parent', index: 4 } });
    const notes = cacheNotes([step('extended', 0), step('expired', 1, '6.0 min passed.'), step('model', 2, 'Another model.'), step('tools', 3, 'Tools changed.')]);
    assert.deepEqual(notes.map(n => [n.index, n.kind]), [[1, 'info'], [2, 'info'], [3, 'miss']]);
    assert.equal(notes[0].text, 'Request 2: 6.0 min passed. This is expected.');
    // A fork of the last 2 turns: its first request cannot match the parent's conversation; a later change can be a fault.
    const windowed = cacheNotes([step('messages', 0), step('messages', 1)], { forkTurns: '2' });
    assert.deepEqual(windowed.map(n => n.kind), ['info', 'miss']);
    assert.match(windowed[0].text, /inherits only the last 2 turn\(s\), so its conversation starts elsewhere than its parent's/);
    assert.deepEqual(cacheNotes([step('messages', 0)], { forkTurns: 'all' }).map(n => n.kind), ['miss'], 'a whole-history fork should have matched');
    assert.equal(isExpected(step('messages', 0), { forkTurns: '3' }), true);
  });

  it('says the prefix is below the minimum when nothing was written or read', () => {
    const nothing: Usage = { input_tokens: 40, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    assert.equal(explain(at(body(), nothing), undefined).cause, 'below-minimum');
    assert.equal(explain(at(body({}, ['hello', 'a', 'q']), nothing), base(body(), nothing)).cause, 'below-minimum');
    assert.equal(explain(at(body(), read(0)), undefined).cause, 'first');
  });

  it('records the session\'s TTL when the prefix breakpoint is on the startup entry, not the system prompt', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Hello.');
    // Opus 4.5's 4,096-token minimum is above this system prompt: request.ts marks the startup entry instead.
    const sent = buildRequestBody(header({ model: 'claude-opus-4-5', cacheTtl: '1h' }), t.entries);
    assert.equal(sent.system[0].cache_control, undefined);
    assert.equal(at(sent, read(0)).ttl, '1h');
    assert.equal(at(buildRequestBody(header({ model: 'claude-opus-4-5' }), t.entries), read(0)).ttl, '5m');
  });
});
