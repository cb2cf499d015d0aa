// docs/design.md §4.5: a fork's first request repeats the parent's latest request byte for byte up to the end of
// the inherited history, with the same cache_control placement rule (at most 4 breakpoints).
import { strict as assert } from 'node:assert';
import type { ForkTurns } from '../../src/common/forkTurns';
import type { CacheControl, Entry, SessionHeader } from '../../src/common/transcript';
import { buildRequestBody, entriesToMessages } from '../../src/runtime/agent/request';
import type { MessagesRequestBody } from '../../src/runtime/model/wire';
import { closeBoundary } from '../../src/runtime/fork/history/close';
import { parentRequestEnd } from '../../src/runtime/fork/history/createFork';
import { renderDirective } from '../../src/runtime/fork/history/directive';
import { selectHistory, snapshotUpTo } from '../../src/runtime/fork/history/select';
import { validateRequest } from '../fakes/validate';
import { Transcript, closingEntry, finishedParent, header, richParent, text, thought } from './forkFixtures';

/** The fork's first request, built as the runtime builds it (createFork + Session.inheritedBreakpointsEnd). */
function forkFirst(h: SessionHeader, snapshot: readonly Entry[], turns: ForkTurns, directive: string) {
  const { inherited, closing } = closeBoundary(selectHistory(snapshot, turns), renderDirective(directive));
  const end = parentRequestEnd(inherited);
  const body = buildRequestBody(h, [...inherited, closingEntry(closing)], end < 0 ? undefined : { parentRequestEnd: end, closingAt: inherited.length });
  return { body, inherited, end, closingBlocks: closing.content.length };
}

/** The parent's latest request, as its loop sent it: every entry up to the last user entry before the last response. */
function parentLatest(h: SessionHeader, inherited: readonly Entry[]): MessagesRequestBody {
  return buildRequestBody(h, inherited.slice(0, parentRequestEnd(inherited) + 1));
}

function breakpoints(body: MessagesRequestBody): string[] {
  const found: string[] = [];
  body.tools.forEach((tool, i) => tool.cache_control && found.push(`tools.${i}`));
  body.system.forEach((block, i) => block.cache_control && found.push(`system.${i}`));
  body.messages.forEach((m, i) => m.content.forEach((b, j) => b.cache_control && found.push(`messages.${i}.content.${j}`)));
  return found;
}

const countCacheControls = (body: unknown) => (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
const lastBlock = (body: MessagesRequestBody, i: number) => `messages.${i}.content.${body.messages[i].content.length - 1}`;

/** The block that ends the inherited history: just before the closing's blocks, which end the request. */
function inheritedEnd(body: MessagesRequestBody, closingBlocks: number): string {
  const last = body.messages.length - 1;
  const own = body.messages[last].content.length;
  return own > closingBlocks ? `messages.${last}.content.${own - closingBlocks - 1}` : lastBlock(body, last - 1);
}

/** A parent whose current turn's tool results are committed and whose next request is still in flight. */
function inFlightParent(): Entry[] {
  const entries = finishedParent();
  return entries.slice(0, -1);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `first difference at ${i}:\n  parent …${a.slice(Math.max(0, i - 120), i + 80)}\n  fork   …${b.slice(Math.max(0, i - 120), i + 80)}`;
}

/** Messages of `parent` are a prefix of the fork's; with `sameLastMessage`, the fork may append blocks to it. */
function assertSamePrefix(parent: MessagesRequestBody, fork: MessagesRequestBody, sameLastMessage = false): void {
  const p = JSON.stringify(parent.messages);
  const f = JSON.stringify(fork.messages);
  const prefix = sameLastMessage ? `${p.slice(0, -3)},` : `${p.slice(0, -1)},`;
  assert.ok(f.startsWith(prefix), firstDifference(prefix, f));
  assert.equal(JSON.stringify(fork.system), JSON.stringify(parent.system));
  assert.equal(JSON.stringify(fork.tools), JSON.stringify(parent.tools));
  assert.equal(fork.model, parent.model);
  assert.equal(fork.max_tokens, parent.max_tokens);
  assert.deepEqual(fork.thinking, parent.thinking);
}

/** A parent whose current turn made many parallel calls: 12 answered, then 12 more unanswered (two forks). */
function wideParent(): Entry[] {
  const t = new Transcript();
  t.startup();
  t.prompt('Audit every module.');
  const wide = t.response(thought('Read them all.'), ...Array.from({ length: 12 }, (_, i) => t.call('read_file', { path: `src/m${i}.ts` })));
  t.results(wide);
  t.response(
    thought('Fork two auditors, keep reading.'),
    t.forkCall('audit a', 'Audit modules 0-5.'),
    t.forkCall('audit b', 'Audit modules 6-11.'),
    ...Array.from({ length: 10 }, (_, i) => t.call('grep', { pattern: `TODO${i}` })),
  );
  return t.entries;
}

function withTrailingPrompt(): { snapshot: Entry[]; entries: Entry[] } {
  const entries = finishedParent();
  const trailing = new Transcript().add('prompt', 'user', [text('Now also bump the version.')]);
  return { entries, snapshot: [...entries, { ...trailing, id: 'x3' }] };
}

describe('fork: request body and breakpoints (docs/design.md §4.5)', () => {
  it('parentRequestEnd: the last user entry before the last response, or the last entry when it is a user entry (its request was sent)', () => {
    const parent = richParent();
    assert.equal(parentRequestEnd(parent.entries), parent.entries.length - 2);
    assert.equal(parent.entries[parent.entries.length - 2].kind, 'tool_results');
    assert.equal(parentRequestEnd(parent.entries.slice(0, -1)), parent.entries.length - 2, 'tool results whose request is in flight');
    assert.equal(parentRequestEnd(parent.entries.slice(0, 3)), 2, 'the first prompt, before any answer');
    assert.equal(parentRequestEnd([]), -1);
  });

  it('a parent request marks the end of system, the final message and the user message before the last assistant', () => {
    const parent = richParent();
    const body = parentLatest(header(), parent.entries);
    const last = body.messages.length - 1;
    assert.equal(body.messages[last - 1].role, 'assistant');
    assert.deepEqual(breakpoints(body), ['system.0', lastBlock(body, last - 2), lastBlock(body, last)]);
  });

  it('the first request of a session (one user message) has two breakpoints: system and that message', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Hello.');
    const body = buildRequestBody(header(), t.entries);
    assert.equal(body.messages.length, 1, 'startup and prompt merge into one user message');
    assert.deepEqual(breakpoints(body), ['system.0', 'messages.0.content.1']);
  });

  it('the TTL of every breakpoint is the session\'s (5m default has no ttl field; 1h says so)', () => {
    const entries = richParent().entries;
    const controls = (h: SessionHeader) => {
      const body = forkFirst(h, entries, 'all', 'x').body;
      return [body.system[0].cache_control, ...body.messages.flatMap(m => m.content.map(b => b.cache_control))].filter(Boolean) as CacheControl[];
    };
    for (const c of controls(header())) assert.deepEqual(c, { type: 'ephemeral' });
    for (const c of controls(header({ cacheTtl: '1h' }))) assert.deepEqual(c, { type: 'ephemeral', ttl: '1h' });
  });

  it('at most 4 cache_control blocks, and a valid request, for every parent request and every fork point', () => {
    for (const entries of [richParent().entries, wideParent(), finishedParent()]) {
      for (let i = 0; i < entries.length; i++) {
        const prefix = entries.slice(0, i + 1);
        if (prefix[i].message.role === 'user') {
          const body = buildRequestBody(header(), prefix);
          assert.ok(countCacheControls(body) <= 4, `parent request at ${i}`);
          validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
        }
        for (const turns of ['all', 1, 2, 5] as const) {
          const { body } = forkFirst(header(), snapshotUpTo(entries, entries[i].id), turns, 'Check the edge cases.');
          assert.ok(countCacheControls(body) <= 4, `fork at ${i}, turns ${String(turns)}: ${countCacheControls(body)}`);
          validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
        }
      }
    }
  });

  it('a fork request after its own first answer uses the plain rule (no inherited breakpoints), still ≤ 4', () => {
    const { body: first } = forkFirst(header(), richParent().entries, 'all', 'x');
    const later = buildRequestBody(header(), richParent().entries);
    assert.ok(countCacheControls(first) <= 4 && countCacheControls(later) <= 4);
  });

  it('building a body never edits the frozen entries (breakpoints go on copies)', () => {
    const entries = richParent().entries;
    const before = JSON.stringify(entries);
    forkFirst(header({ cacheTtl: '1h' }), entries, 'all', 'x');
    buildRequestBody(header(), entries.slice(0, -1));
    assert.equal(JSON.stringify(entries), before);
    assert.doesNotMatch(before, /cache_control/);
  });

  it('entriesToMessages merges consecutive same-role entries and shares unmerged messages (===)', () => {
    const entries = richParent().entries;
    const messages = entriesToMessages(entries);
    assert.equal(messages[0].role, 'user');
    assert.deepEqual(messages[0].content, [...entries[0].message.content, ...entries[1].message.content, ...entries[2].message.content]);
    assert.equal(messages[1], entries[3].message);
    for (let i = 1; i < messages.length; i++) assert.notEqual(messages[i].role, messages[i - 1].role);
  });
});

describe('fork: the first request shares the parent\'s prefix byte for byte (docs/design.md §4.5)', () => {
  const scenarios: { name: string; entries: () => Entry[]; settings?: Parameters<typeof header>[0] }[] = [
    { name: 'a model-initiated fork mid-turn (unanswered Agent fork calls)', entries: () => richParent().entries },
    { name: 'after a finished turn', entries: finishedParent },
    { name: 'a turn with many parallel tool calls', entries: wideParent },
    { name: 'with extended thinking and a 1h TTL', entries: () => richParent().entries, settings: { thinkingBudget: 4000, cacheTtl: '1h' } },
    { name: 'tool results committed, their request in flight', entries: inFlightParent },
  ];

  for (const scenario of scenarios) {
    it(`equals the parent's latest request up to the end of the inherited history: ${scenario.name}`, () => {
      const h = header(scenario.settings);
      const entries = scenario.entries();
      const { body, inherited, end } = forkFirst(h, entries, 'all', 'Write unit tests for parse().');
      assert.ok(end > 0);
      assert.equal(inherited.length, entries.length);
      const parent = parentLatest(h, inherited);
      // After tool results the directive joins their user message: the parent's last message is then
      // a prefix of the fork's last message, block for block.
      assertSamePrefix(parent, body, inherited[inherited.length - 1].message.role === 'user');
      validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
    });
  }

  it('keeps every breakpoint of the parent\'s latest request (so the parent\'s cache entries are read)', () => {
    for (const entries of [richParent().entries, wideParent(), finishedParent(), inFlightParent()]) {
      const { body, inherited, closingBlocks } = forkFirst(header(), entries, 'all', 'x');
      const parent = breakpoints(parentLatest(header(), inherited));
      const fork = breakpoints(body);
      for (const at of parent) assert.ok(fork.includes(at), `${at} kept: ${fork.join(' ')}`);
      // Siblings share everything before their directives: the block just before the directive (the last
      // placeholder result, else the end of the inherited history) carries the breakpoint; the fork's
      // second request finds it one block back from its breakpoint on the closing entry.
      const last = body.messages.length - 1;
      const own = body.messages[last].content.length;
      const beforeDirective = own > 1 ? `messages.${last}.content.${own - 2}` : lastBlock(body, last - 1);
      assert.equal(fork[fork.length - 1], beforeDirective, 'and one just before the directive');
      assert.ok(fork.length <= 4, 'at most four breakpoints');
      void inheritedEnd(body, closingBlocks);
    }
  });

  it('Fork from here at every earlier response equals the request that produced that response', () => {
    const entries = richParent().entries;
    const responses = entries.filter(e => e.kind === 'response');
    assert.ok(responses.length >= 4);
    for (const response of responses) {
      const { body, inherited } = forkFirst(header(), snapshotUpTo(entries, response.id), 'all', 'x');
      assert.equal(inherited[inherited.length - 1], response);
      assertSamePrefix(parentLatest(header(), inherited), body);
    }
  });

  it('Fork from here at every tool-results entry equals the request that carried those results', () => {
    for (const entries of [richParent().entries, finishedParent()]) {
      for (const results of entries.filter(e => e.kind === 'tool_results')) {
        const { body, inherited } = forkFirst(header(), snapshotUpTo(entries, results.id), 'all', 'x');
        assert.equal(inherited[inherited.length - 1], results);
        assertSamePrefix(parentLatest(header(), inherited), body, true);
      }
    }
  });

  it('a dropped trailing prompt: equals the request that produced the last answer, through that answer', () => {
    const { snapshot, entries } = withTrailingPrompt();
    const { body, inherited } = forkFirst(header(), snapshot, 'all', 'x');
    assert.equal(inherited.length, entries.length, 'the trailing prompt is dropped');
    assertSamePrefix(parentLatest(header(), inherited), body);
  });

  it('two sibling forks from one point differ only in the directive text', () => {
    for (const entries of [richParent().entries, wideParent(), finishedParent(), inFlightParent()]) {
      const a = forkFirst(header(), entries, 'all', 'Sibling A: cover the error paths.').body;
      const b = forkFirst(header(), entries, 'all', 'Sibling B: benchmark parse().').body;
      const ja = JSON.stringify(a);
      const jb = JSON.stringify(b);
      assert.equal(ja.split('Sibling A: cover the error paths.').length, 2);
      assert.equal(ja.replace('Sibling A: cover the error paths.', 'Sibling B: benchmark parse().'), jb);
      const directiveAt = ja.indexOf('DIRECTIVE: ');
      assert.ok(directiveAt > 0 && ja.slice(0, directiveAt) === jb.slice(0, directiveAt), 'identical up to the directive');
    }
  });

  it('a numeric window keeps the parent\'s system prompt, tools, model and settings exactly', () => {
    const h = header({ thinkingBudget: 2048 });
    const { body } = forkFirst(h, richParent().entries, 2, 'x');
    assert.equal(body.system[0].text, h.systemPrompt);
    assert.equal(JSON.stringify(body.tools), JSON.stringify(h.tools));
    assert.deepEqual(body.tools.map(t => t.name), h.tools.map(t => t.name));
    assert.equal(body.model, h.settings.model);
    assert.equal(body.max_tokens, h.settings.maxTokens);
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048 });
    validateRequest(JSON.parse(JSON.stringify(body)), 'messages');
  });
});
