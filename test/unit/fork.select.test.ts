// docs/design.md §3 (real user turns, frozen entries) and §4.2 (selecting history).
import { strict as assert } from 'node:assert';
import type { Entry, Message } from '../../src/common/transcript';
import { deepFreeze, isRealUserTurn } from '../../src/common/transcript';
import { ForkPointError, countRealTurns, selectHistory, snapshotUpTo, windowSkipsSummary } from '../../src/runtime/fork/history/select';
import { requestViewOf, viewHasSummary } from '../../src/common/requestView';
import { Transcript, compactedParent, reminderText, richParent, text } from './forkFixtures';

const user = (...content: Message['content']): Message => ({ role: 'user', content });
const ids = (entries: readonly Entry[]) => entries.map(e => e.id);

describe('fork: real user turns (docs/design.md §3)', () => {
  it('a user text is a real turn', () => {
    assert.equal(isRealUserTurn(user(text('Fix the bug.'))), true);
  });

  it('an assistant message is never a real user turn', () => {
    assert.equal(isRealUserTurn({ role: 'assistant', content: [text('Fix the bug.')] }), false);
  });

  it('tool results alone are not a real turn', () => {
    assert.equal(isRealUserTurn(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' })), false);
    assert.equal(isRealUserTurn(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [text('Fix the bug.')] })), false);
  });

  it('empty and whitespace-only texts are not a real turn', () => {
    assert.equal(isRealUserTurn(user(text(''))), false);
    assert.equal(isRealUserTurn(user(text(' \n\t '), text(''))), false);
    assert.equal(isRealUserTurn(user()), false);
  });

  it('a pure <system-reminder> text is not a real turn (also with surrounding whitespace)', () => {
    assert.equal(isRealUserTurn(user(text(reminderText('The user opened a.ts.')))), false);
    assert.equal(isRealUserTurn(user(text(`\n  ${reminderText('x')}\n`))), false);
    assert.equal(isRealUserTurn(user(text('<system-reminder>a</system-reminder>\n<system-reminder>b</system-reminder>'))), false);
  });

  it('tool results with a pure reminder are not a real turn; with a user text they are', () => {
    const result = { type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'ok' };
    assert.equal(isRealUserTurn(user(result, text(reminderText('note')))), false);
    assert.equal(isRealUserTurn(user(result, text('Stop and use yarn instead.'))), true);
  });

  it('a reminder followed or preceded by user text is a real turn', () => {
    assert.equal(isRealUserTurn(user(text(`${reminderText('ctx')}\nPlease fix the build.`))), true);
    assert.equal(isRealUserTurn(user(text(`Please fix the build.\n${reminderText('ctx')}`))), true);
    assert.equal(isRealUserTurn(user(text(reminderText('ctx')), text('Please fix the build.'))), true);
  });

  it('user text between two reminders is a real turn (the text is not a pure reminder)', () => {
    const sandwich = '<system-reminder>a</system-reminder>\nPlease fix the build.\n<system-reminder>b</system-reminder>';
    assert.equal(isRealUserTurn(user(text(sandwich))), true);
  });

  it('deepFreeze freezes nested content blocks and returns the same object', () => {
    const entry = { id: 'e1', kind: 'prompt', time: 't', message: { role: 'user', content: [{ type: 'text', text: 'x' }] } };
    assert.equal(deepFreeze(entry), entry);
    assert.ok(Object.isFrozen(entry) && Object.isFrozen(entry.message) && Object.isFrozen(entry.message.content[0]));
  });

  it('the fixtures classify as intended: startup, reminders, notifications, empties and tool results are not real', () => {
    const parent = richParent({ emptyTexts: true });
    for (const entry of parent.realTurns) assert.equal(isRealUserTurn(entry.message), true, entry.id);
    for (const entry of parent.notReal) assert.equal(isRealUserTurn(entry.message), false, entry.id);
  });
});

describe('fork: snapshot (docs/design.md §4.2)', () => {
  it('without a fork point the snapshot is every committed entry, the current turn included', () => {
    const parent = richParent();
    const snapshot = snapshotUpTo(parent.entries);
    assert.deepEqual(ids(snapshot), ids(parent.entries));
    assert.equal(snapshot[snapshot.length - 1], parent.current);
  });

  it('Fork from here: the snapshot ends with the chosen entry', () => {
    const parent = richParent();
    const at = parent.entries[5];
    const snapshot = snapshotUpTo(parent.entries, at.id);
    assert.deepEqual(ids(snapshot), ids(parent.entries.slice(0, 6)));
    assert.equal(snapshot[5], at);
  });

  it('an unknown fork point is a ForkPointError', () => {
    assert.throws(() => snapshotUpTo(richParent().entries, 'e-missing'), ForkPointError);
  });
});

describe('fork: selecting history (docs/design.md §4.2)', () => {
  it('"all" is the snapshot as it is, startup context and reminders included', () => {
    const parent = richParent({ emptyTexts: true });
    assert.deepEqual(ids(selectHistory(parent.entries, 'all')), ids(parent.entries));
  });

  it('"all" keeps the compaction summary', () => {
    const { entries, summary } = compactedParent();
    const selected = selectHistory(entries, 'all');
    assert.deepEqual(ids(selected), ids(entries));
    assert.ok(selected.includes(summary));
  });

  it('N: the slice from the Nth most recent real turn to the end, startup put back in front', () => {
    const parent = richParent({ emptyTexts: true });
    const [, second, third] = parent.realTurns;
    const startup = parent.entries[0];
    assert.deepEqual(ids(selectHistory(parent.entries, 1)), ids([startup, ...parent.entries.slice(parent.entries.indexOf(third))]));
    assert.deepEqual(ids(selectHistory(parent.entries, 2)), ids([startup, ...parent.entries.slice(parent.entries.indexOf(second))]));
  });

  it('N: reminders, notifications, empty texts and tool results do not count as turns', () => {
    const parent = richParent({ emptyTexts: true });
    // Between the 2nd and 3rd real turns lie a notification, empty/whitespace texts and reminders.
    const window = selectHistory(parent.entries, 1);
    assert.equal(window[1], parent.realTurns[2], 'the window starts at the latest real turn');
    assert.equal(countRealTurns(parent.entries), 3);
  });

  it('N includes the current turn so far: its request, reasoning and recorded tool results', () => {
    const parent = richParent();
    const window = selectHistory(parent.entries, 1);
    const last = parent.realTurns[2];
    assert.deepEqual(ids(window.slice(1)), ids(parent.entries.slice(parent.entries.indexOf(last))));
    assert.equal(window[window.length - 1], parent.current);
    assert.ok(window.some(e => e.kind === 'tool_results'));
  });

  it('N larger than the number of real turns takes all real turns (and nothing before the first)', () => {
    const parent = richParent({ emptyTexts: true });
    const first = parent.realTurns[0];
    const expected = [parent.entries[0], ...parent.entries.slice(parent.entries.indexOf(first))];
    assert.deepEqual(ids(selectHistory(parent.entries, 3)), ids(expected));
    assert.deepEqual(ids(selectHistory(parent.entries, 50)), ids(expected));
    assert.ok(!selectHistory(parent.entries, 50).includes(parent.entries[1]), 'the reminder before the first real turn is left out');
  });

  it('zero real turns: a numeric window is the startup entry alone', () => {
    const t = new Transcript();
    const startup = t.startup();
    assert.deepEqual(selectHistory(t.entries, 3), [startup]);
    t.reminder('The user opened a.ts.');
    t.add('prompt', 'user', [text('  ')]);
    assert.deepEqual(selectHistory(t.entries, 1), [startup]);
    assert.equal(countRealTurns(t.entries), 0);
  });

  it('a compaction summary is never in a numeric window, whatever N', () => {
    const { entries, summary } = compactedParent();
    for (const n of [1, 2, 3, 100]) assert.ok(!selectHistory(entries, n).includes(summary), `N=${n}`);
  });

  it('a numeric window counts only the real turns after the summary; the startup entry is put back', () => {
    const { entries, realTurns } = compactedParent();
    const startup = entries[0];
    assert.deepEqual(ids(selectHistory(entries, 1)), ids([startup, realTurns[1]]));
    const fromFirst = [startup, ...entries.slice(entries.indexOf(realTurns[0]))];
    assert.deepEqual(ids(selectHistory(entries, 2)), ids(fromFirst));
    assert.deepEqual(ids(selectHistory(entries, 9)), ids(fromFirst));
  });

  it('real turns before a summary (older history still in the snapshot) are never reached by a window', () => {
    const t = new Transcript();
    const startup = t.startup();
    t.prompt('old question');
    t.response(text('old answer'));
    t.summary();
    const recent = t.prompt('new question');
    const answer = t.response(text('new answer'));
    assert.deepEqual(selectHistory(t.entries, 5), [startup, recent, answer]);
  });

  it('startup and summary only: a numeric window is the startup entry alone', () => {
    const t = new Transcript();
    const startup = t.startup();
    t.summary();
    assert.deepEqual(selectHistory(t.entries, 2), [startup]);
  });

  it('windowSkipsSummary: true for a numeric window of a compacted parent, false for "all" or no summary', () => {
    const { entries } = compactedParent();
    assert.equal(windowSkipsSummary(entries, 2), true);
    assert.equal(windowSkipsSummary(entries, 'all'), false);
    assert.equal(windowSkipsSummary(richParent().entries, 2), false);
  });

  it('viewHasSummary reads a request view\'s head and agrees with windowSkipsSummary on request views', () => {
    const compacted = requestViewOf(compactedParent().entries);
    const plain = requestViewOf(richParent().entries);
    assert.equal(viewHasSummary(compacted), true);
    assert.equal(viewHasSummary(plain), false);
    assert.equal(viewHasSummary([]), false);
    for (const view of [compacted, plain]) assert.equal(viewHasSummary(view), windowSkipsSummary(view, 2));
    // Only the head is read: a summary after the first entry that is not a startup entry is not a request view's.
    const t = new Transcript();
    t.startup();
    t.prompt('a question');
    t.summary();
    assert.equal(viewHasSummary(t.entries), false);
  });

  it('countRealTurns ignores the synthetic prefix even though the summary is a user text', () => {
    const { entries } = compactedParent();
    assert.equal(countRealTurns(entries), 2);
  });

  it('Fork from here with N: the window is taken from the snapshot ending at the chosen entry', () => {
    const parent = richParent();
    const [first, second] = parent.realTurns;
    const answerToSecond = parent.entries[parent.entries.indexOf(second) + 3];
    assert.equal(answerToSecond.kind, 'response');
    const window = selectHistory(snapshotUpTo(parent.entries, answerToSecond.id), 1);
    assert.deepEqual(ids(window), ids([parent.entries[0], ...parent.entries.slice(parent.entries.indexOf(second), parent.entries.indexOf(answerToSecond) + 1)]));
    assert.ok(!window.includes(first));
  });
});

describe('fork: selection shares frozen entries with the parent (docs/design.md §3, §4.2)', () => {
  for (const turns of ['all', 1, 2, 10] as const) {
    it(`fork_turns ${String(turns)}: every selected entry is the parent's own frozen object (===, no copies)`, () => {
      const parent = richParent({ emptyTexts: true });
      const selected = selectHistory(parent.entries, turns);
      assert.ok(selected.length > 0);
      for (const entry of selected) {
        assert.ok(parent.entries.includes(entry), `${entry.id} is shared`);
        assert.ok(Object.isFrozen(entry) && Object.isFrozen(entry.message) && Object.isFrozen(entry.message.content), entry.id);
      }
    });
  }

  it('the parent\'s array is not mutated, and changing the selection does not change the parent', () => {
    const parent = richParent({ emptyTexts: true });
    const before = parent.entries.slice();
    for (const turns of ['all', 1, 3] as const) {
      const selected = selectHistory(snapshotUpTo(parent.entries), turns);
      assert.notEqual(selected, parent.entries);
      selected.pop();
      selected.push(parent.entries[0]);
    }
    assert.deepEqual(parent.entries, before);
    for (let i = 0; i < before.length; i++) assert.equal(parent.entries[i], before[i]);
  });

  it('a frozen entry cannot be edited in place', () => {
    const entry = richParent().entries[2];
    assert.throws(() => (entry.message.content as unknown[]).push(text('x')), TypeError);
  });
});
