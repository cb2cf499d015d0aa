// docs/design.md §4.2–§4.5 end to end through createForkSession, with an in-memory store: what a fork (or a regular
// subagent) is launched with, and that its first request as the loop builds it shares the parent's prefix.
import { strict as assert } from 'node:assert';
import type { Entry } from '../../src/common/transcript';
import { buildRequestBody } from '../../src/runtime/agent/request';
import { requestHome } from '../../src/runtime/agent/loop';
import { closeBoundary } from '../../src/runtime/fork/history/close';
import { createForkSession, parentRequestEnd } from '../../src/runtime/fork/history/createFork';
import type { ForkSpec } from '../../src/runtime/fork/history/createFork';
import { FORK_STARTED_RESULT, isForkTranscript, renderDirective } from '../../src/runtime/fork/history/directive';
import type { JsonlWriter } from '../../src/runtime/session/jsonl';
import { Session } from '../../src/runtime/session/session';
import type { SessionRecord } from '../../src/runtime/session/records';
import type { SessionStore } from '../../src/runtime/session/sessionStore';
import { header, richParent, text } from './forkFixtures';

interface MemoryStore { store: SessionStore; written: Map<string, SessionRecord[]> }

function memoryStore(): MemoryStore {
  const written = new Map<string, SessionRecord[]>();
  const writer = (id: string) => {
    written.set(id, []);
    return { append: (record: SessionRecord) => written.get(id)!.push(record), close: () => undefined } as unknown as JsonlWriter;
  };
  const store = {
    create: (h: Session['header'], initial: SessionRecord[] = []) => {
      const session = new Session(h, writer(h.id));
      written.get(h.id)!.push(...initial);
      return session;
    },
  } as unknown as SessionStore;
  return { store, written };
}

function parentSession(entries: readonly Entry[]): Session {
  const session = new Session(header(), { append: () => undefined, close: () => undefined } as unknown as JsonlWriter);
  for (const entry of entries) session.replay({ type: 'entry', entry });
  return session;
}

function spec(parent: Session, extra: Partial<ForkSpec> = {}): ForkSpec {
  return { parent, kind: 'fork', directive: 'Write unit tests for parse().', turns: 'all', isolation: 'shared', origin: 'agent', name: 'write tests', ...extra };
}

describe('fork: createForkSession (docs/design.md §4.2–§4.5)', () => {
  it('writes the bootstrap record before anything else, with the selection, closing and parentRequestEnd', () => {
    const parent = parentSession(richParent().entries);
    const { store, written } = memoryStore();
    const fork = createForkSession(store, spec(parent, { turns: 2 }));
    const records = written.get(fork.id)!;
    assert.equal(records.length, 1);
    assert.equal(records[0].type, 'bootstrap');
    const bootstrap = fork.bootstrap!;
    const expected = closeBoundary(parent.entries(), renderDirective('Write unit tests for parse().'));
    assert.equal(bootstrap.fork.forkTurns, '2');
    assert.equal(bootstrap.parentRequestEnd, parentRequestEnd(fork.entries().slice(0, bootstrap.inheritedCount)));
    assert.deepEqual(bootstrap.closing.message, expected.closing);
    assert.equal(bootstrap.closing.kind, 'prompt');
  });

  it('a fork shares the parent\'s frozen entries (===) and leaves the parent\'s history appendable', () => {
    const parent = parentSession(richParent().entries);
    const before = parent.entries().slice();
    const fork = createForkSession(memoryStore().store, spec(parent));
    const inherited = fork.entries().slice(0, fork.bootstrap!.inheritedCount);
    assert.equal(inherited.length, before.length);
    for (let i = 0; i < inherited.length; i++) assert.equal(inherited[i], before[i]);
    assert.equal(Object.isFrozen(parent.entries()), false, 'the parent\'s array is not frozen by the fork');
    parent.commit('tool_results', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_5', content: 'ok' }] });
    assert.equal(parent.entries().length, before.length + 1);
    assert.equal(fork.entries().length, before.length + 1, 'the fork sees its inherited entries and its closing only');
  });

  it('the fork\'s list, built on first use, is its launch-time history whatever the parent did meanwhile', () => {
    const parent = parentSession(richParent().entries);
    const launched = parent.entries().slice();
    const fork = createForkSession(memoryStore().store, spec(parent));
    // Before the fork reads its entries: the parent appends (in place), then rewinds (a new array) and appends.
    parent.commit('tool_results', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_5', content: 'ok' }] });
    assert.ok(parent.rewindTo(launched[1].id));
    parent.commit('prompt', { role: 'user', content: [text('Something else.')] });
    assert.equal(fork.lastEntry(), fork.entries()[fork.entries().length - 1], 'the closing message is last');
    assert.deepEqual(fork.entries().slice(0, -1).map(e => e.id), launched.map(e => e.id));
    assert.deepEqual(fork.ownEntries(), []);
  });

  it('a snapshot taken before an await keeps its length when the parent commits before the fork is made', () => {
    const parent = parentSession(richParent().entries);
    const launched = parent.history().slice();
    const snapshot = parent.snapshot();
    parent.commit('tool_results', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_5', content: 'ok' }] });
    assert.equal(snapshot.entries.length, launched.length + 1, 'the same array, grown in place');
    const fork = createForkSession(memoryStore().store, spec(parent, { snapshot }));
    assert.deepEqual(fork.entries().slice(0, -1).map(e => e.id), launched.map(e => e.id));
  });

  it('the fork keeps the parent\'s system prompt, tools, model and settings; only ids and title change', () => {
    const parent = parentSession(richParent().entries);
    const fork = createForkSession(memoryStore().store, spec(parent, { atEntryId: 'e3' }));
    assert.equal(fork.header.systemPrompt, parent.header.systemPrompt);
    assert.equal(JSON.stringify(fork.header.tools), JSON.stringify(parent.header.tools));
    assert.deepEqual(fork.header.settings, parent.header.settings);
    assert.deepEqual(fork.header.parent, { sessionId: parent.id, entryId: 'e3' });
    assert.notEqual(fork.id, parent.id);
  });

  it('the fork\'s transcript carries the boilerplate and its placeholders; the first request shares the parent\'s bytes', () => {
    const entries = richParent().entries;
    const parent = parentSession(entries);
    const fork = createForkSession(memoryStore().store, spec(parent));
    assert.equal(isForkTranscript(fork.entries()), true);
    assert.equal(fork.entries()[fork.entries().length - 1].message.content.filter(b => b.type === 'tool_result' && b.content === FORK_STARTED_RESULT).length, 2);
    const first = buildRequestBody(fork.header, fork.entries(), fork.inheritedBreakpointsEnd());
    const end = parentRequestEnd(entries);
    const latest = buildRequestBody(parent.header, entries.slice(0, end + 1));
    const p = JSON.stringify(latest.messages);
    assert.ok(JSON.stringify(first.messages).startsWith(`${p.slice(0, -1)},`));
    assert.equal(JSON.stringify(first.system), JSON.stringify(latest.system));
    assert.equal(JSON.stringify(first.tools), JSON.stringify(latest.tools));
  });

  for (const kind of ['general-purpose', 'explore'] as const) {
    it(`a regular subagent (${kind}) starts with no parent history: the startup context and its own prompt`, () => {
      const entries = richParent().entries;
      const parent = parentSession(entries);
      const child = createForkSession(memoryStore().store, spec(parent, { kind, directive: 'Map the repository layout.' }));
      const view = child.entries();
      assert.equal(view.length, 2);
      assert.equal(view[0], entries[0]);
      assert.equal(view[0].kind, 'startup');
      assert.deepEqual(view[1].message, { role: 'user', content: [text('Map the repository layout.')] });
      assert.equal(child.bootstrap!.fork.forkTurns, 'none');
      assert.equal(isForkTranscript(view), false, 'no fork boilerplate');
    });
  }
});

// Where each request keeps its leading messages (agent/loop.ts requestHome, agent/requestPrefix.ts). Each
// slot holds one prefix: a fork of a fork that filled its grandparent's slot evicted the grandparent's
// latest request there, and the grandparent's next fork rebuilt it.
describe('fork: the prefix slot a request fills', () => {
  it('a chat\'s requests and its forks\' first ones share the chat\'s slot; a fork of a fork fills its parent\'s', () => {
    const parent = parentSession(richParent().entries);
    const { store } = memoryStore();
    const child = createForkSession(store, spec(parent));
    assert.equal(requestHome(parent, undefined), parent.prefixHome, 'a chat\'s own requests');
    assert.equal(requestHome(child, child.inheritedBreakpointsEnd()), parent.prefixHome, 'a fork\'s first: its parent\'s');
    child.commit('response', { role: 'assistant', content: [text('Scope: parse.\nResult: tests written.')] });
    const grandchild = createForkSession(store, spec(child, { directive: 'Check the tests.' }));
    const first = grandchild.inheritedBreakpointsEnd();
    assert.ok(first, 'the grandchild\'s first request repeats the child\'s latest');
    assert.equal(requestHome(grandchild, first), child.prefixHome, 'a fork of a fork: its parent\'s slot');
    assert.notEqual(requestHome(grandchild, first), parent.prefixHome, 'not its grandparent\'s');
    assert.equal(requestHome(child, undefined), undefined, 'a fork\'s later requests keep nothing');
  });
});
