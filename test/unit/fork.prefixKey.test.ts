// The stagger's prefix key (stagger.ts) names a fork's inherited entries by their count and the ids at both
// ends: siblings from one point share it, and any other selection of the same parent gets another one.
import { strict as assert } from 'node:assert';
import type { Entry } from '../../src/common/transcript';
import { createForkSession } from '../../src/runtime/fork/history/createFork';
import type { ForkSpec } from '../../src/runtime/fork/history/createFork';
import { sharedPrefixKey } from '../../src/runtime/fork/stagger';
import type { JsonlWriter } from '../../src/runtime/session/jsonl';
import { Session } from '../../src/runtime/session/session';
import type { SessionStore } from '../../src/runtime/session/sessionStore';
import { header } from './forkFixtures';

const noWriter = () => ({ append: () => undefined, close: () => undefined }) as unknown as JsonlWriter;
const store = { create: (h: Session['header']) => new Session(h, noWriter()) } as unknown as SessionStore;

function entry(id: string, kind: Entry['kind'], role: 'user' | 'assistant', text: string): Entry {
  return { id, kind, time: '2025-03-14T09:00:00.000Z', message: { role, content: [{ type: 'text', text }] } };
}

/** A startup entry and `turns` prompt/response pairs: long enough that the key names only its ends. */
function longParent(turns: number): Session {
  const session = new Session(header(), noWriter());
  session.replay({ type: 'entry', entry: entry('e-startup', 'startup', 'user', 'Workspace: /w') });
  for (let t = 0; t < turns; t++) {
    session.replay({ type: 'entry', entry: entry(`e-p${t}`, 'prompt', 'user', `Question ${t}?`) });
    session.replay({ type: 'entry', entry: entry(`e-r${t}`, 'response', 'assistant', `Answer ${t}.`) });
  }
  return session;
}

const fork = (parent: Session, extra: Partial<ForkSpec>) =>
  createForkSession(store, { parent, kind: 'fork', directive: 'Check the parser.', turns: 'all', isolation: 'shared', origin: 'user', name: 'f', ...extra });

describe('fork: the stagger\'s shared prefix key', () => {
  it('is the same for siblings from one point, and differs for another window, another fork point or another parent', () => {
    const parent = longParent(30);
    const a = sharedPrefixKey(fork(parent, {}));
    assert.ok(a);
    assert.equal(sharedPrefixKey(fork(parent, { directive: 'Check the lexer.' })), a);
    const windows = [1, 2, 3, 20].map(turns => sharedPrefixKey(fork(parent, { turns })));
    assert.equal(new Set([a, ...windows]).size, 5);
    assert.equal(sharedPrefixKey(fork(parent, { turns: 3, directive: 'Other.' })), windows[2]);
    const earlier = sharedPrefixKey(fork(parent, { atEntryId: 'e-r20' }));
    assert.notEqual(earlier, a);
    assert.notEqual(sharedPrefixKey(fork(longParent(31), {})), a);
  });
});
