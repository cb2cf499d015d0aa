// agent/requestPrefix.ts: a parent's request and its forks' first requests keep their leading messages on
// the parent and reuse them. Whatever is reused, the body and its bytes must be those of a whole build: the
// bytes are checked against JSON.stringify of buildRequestBody's body (the build without a prefix), for a
// parent ending with an answer, one whose last tool results are still being answered (the directive joins them), siblings, a fork on
// another model, and the parent's next request.
import { strict as assert } from 'node:assert';
import type { Entry, SessionHeader } from '../../src/common/transcript';
import { buildRequest, buildRequestBody } from '../../src/runtime/agent/request';
import type { PrefixHome } from '../../src/runtime/agent/requestPrefix';
import type { ForkFirstRequest } from '../../src/runtime/session/session';
import { fingerprint } from '../../src/runtime/cache/fingerprint';
import { checkKeptPrefix, PrefixMismatchError } from '../../src/runtime/agent/prefixCheck';
import { closeBoundary } from '../../src/runtime/fork/history/close';
import { parentRequestEnd } from '../../src/runtime/fork/history/createFork';
import { renderDirective } from '../../src/runtime/fork/history/directive';
import { selectHistory } from '../../src/runtime/fork/history/select';
import { closingEntry, finishedParent, header } from './forkFixtures';

const USAGE = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function forkEntries(snapshot: readonly Entry[], directive: string): { entries: Entry[]; fork?: ForkFirstRequest } {
  const { inherited, closing } = closeBoundary(selectHistory(snapshot, 'all'), renderDirective(directive));
  const end = parentRequestEnd(inherited);
  return { entries: [...inherited, closingEntry(closing)], fork: end < 0 ? undefined : { parentRequestEnd: end, closingAt: inherited.length } };
}

/** The request built with `home`, checked against the whole build; returns whether it reused a kept prefix. */
function check(h: SessionHeader, entries: readonly Entry[], fork: ForkFirstRequest | undefined, home: PrefixHome): { reused: boolean } {
  const before = home.prefix;
  const built = buildRequest(h, entries, fork, {}, home);
  const whole = buildRequestBody(h, entries, fork);
  assert.deepEqual(built.body, whole);
  assert.equal(Buffer.concat(built.encoded.chunks).toString('utf8'), JSON.stringify({ ...whole, stream: true }));
  assert.equal(built.encoded.byteLength, Buffer.byteLength(JSON.stringify({ ...whole, stream: true })));
  const record = fingerprint(built.body, 0, USAGE, undefined, undefined, { prefix: built.prefix, ttl: built.ttl });
  const plain = fingerprint(whole, 0, USAGE, undefined);
  assert.deepEqual(record, plain);
  return { reused: before !== undefined && built.prefix === before };
}

describe('request prefix: kept leading messages, the bytes of a whole build', () => {
  for (const [model, ttl] of [[undefined, undefined], [undefined, '1h'], ['claude-sonnet-5-5', undefined]] as const) {
    it(`siblings of a finished parent reuse its request's messages (${model ?? 'default model'}, cache TTL ${ttl ?? '5m'})`, () => {
      const h = header({ ...(ttl ? { cacheTtl: ttl } : {}), ...(model ? { model } : {}) });
      const parent = finishedParent();
      const home: PrefixHome = {};
      const end = parentRequestEnd(parent);
      // The parent's latest request, as its loop sent it.
      assert.equal(check(h, parent.slice(0, end + 1), undefined, home).reused, false);
      const first = forkEntries(parent, 'First sibling.');
      assert.equal(check(h, first.entries, first.fork, home).reused, true, 'the first fork reuses the parent\'s request');
      const second = forkEntries(parent, 'Second sibling.');
      assert.equal(check(h, second.entries, second.fork, home).reused, true, 'and so does its sibling');
    });
  }

  it('a parent whose tool results\' request is in flight: the directive joins them, the first fork builds the prefix and its sibling reuses it', () => {
    const h = header();
    const parent = finishedParent().slice(0, -1);
    const home: PrefixHome = {};
    const first = forkEntries(parent, 'First.');
    assert.equal(first.fork?.parentRequestEnd, first.fork!.closingAt - 1, 'the last inherited entry is a user entry');
    assert.equal(check(h, first.entries, first.fork, home).reused, false);
    const second = forkEntries(parent, 'Second.');
    assert.equal(check(h, second.entries, second.fork, home).reused, true);
  });

  it('a fork on another model, and the parent\'s next request, build their own', () => {
    const h = header();
    const parent = finishedParent();
    const home: PrefixHome = {};
    const fork = forkEntries(parent, 'Same model.');
    check(h, fork.entries, fork.fork, home);
    const other = header({ model: 'claude-opus-4-5' });
    assert.equal(check(other, fork.entries, fork.fork, home).reused, false, 'another model');
    assert.equal(check(h, parent, undefined, home).reused, false, 'the parent\'s next request covers more entries');
    assert.equal(check(h, parent, undefined, home).reused, true, 'the same request again');
  });
});

// The prefix is matched by identity of the 8 entries at each end only (agent/requestPrefix.ts). A history that
// shares both ends with the kept one but not its middle cannot arise from appends, rewinds or repairs (each
// makes new end entries); if one ever did, the kept messages would be sent. agent/prefixCheck.ts, on in every
// runtime test, refuses such a body instead of sending it.
describe('request prefix: the check that a reused prefix is the whole build', () => {
  function longChat(turns: number): Entry[] {
    const entries: Entry[] = [];
    for (let n = 0; n < turns; n++) {
      entries.push(closingEntry({ role: 'user', content: [{ type: 'text', text: `Question ${n}` }] }));
      entries.push({ ...closingEntry({ role: 'assistant', content: [{ type: 'text', text: `Answer ${n}` }] }), kind: 'response' });
    }
    return entries.map((entry, i) => Object.freeze({ ...entry, id: `e${i}` }));
  }

  it('a kept prefix whose middle differs is reused by the guard, and refused by the check', () => {
    const h = header();
    const chat = longChat(12);
    const home: PrefixHome = {};
    const first = buildRequest(h, chat, undefined, {}, home);
    checkKeptPrefix(first, () => buildRequestBody(h, chat, undefined), true);
    // The same list object for object, but one entry in the middle another (what no history operation makes).
    const other = chat.slice();
    other[11] = Object.freeze({ ...chat[11], message: { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Another answer' }] } });
    const stale = buildRequest(h, other, undefined, {}, home);
    assert.equal(stale.prefix, first.prefix, 'the ends match: the kept prefix is reused');
    assert.ok(!Buffer.concat(stale.encoded.chunks).toString('utf8').includes('Another answer'), 'and its messages are sent');
    assert.throws(() => checkKeptPrefix(stale, () => buildRequestBody(h, other, undefined), true), PrefixMismatchError);
    // Off by default outside tests: nothing is built twice.
    assert.doesNotThrow(() => checkKeptPrefix(stale, () => assert.fail('not built'), false));
  });
});
