// What the Forks panel and the palette show of a conversation: transcript messages and their fork points,
// the turn picker's numbers, and a fork's numbers.
import * as assert from 'node:assert/strict';
import { durationText, tokenText, turnsLabel, usageLine } from '../../src/common/forkDisplay';
import { windowSkipsSummary } from '../../src/common/forkWindow';
import { turnChoices, turnsHint, validateTurns } from '../../src/host/commands/turnChoices';
import { buildSessionView } from '../../src/host/panel/sessionView';
import { Transcript, richParent, text } from './forkFixtures';

const HEADER = { id: 's-1', title: 'parser work' };
const md = (source: string) => `<md>${source}</md>`;

describe('panel: transcript view of the chat', () => {
  it('shows prompts and answers, folds tool calls under their answer, hides startup and reminders', () => {
    const t = new Transcript();
    t.startup();
    const p1 = t.prompt('List the files');
    const r1 = t.response(text('Let me look.'), t.call('list_files', { pattern: '**/*' }));
    const res1 = t.results(r1);
    const final1 = t.response(text('There are **3** files.'));
    t.reminder('The user opened README.md.');
    const p2 = t.prompt('Read README.md');
    const r2 = t.response(t.call('read_file', { path: 'README.md' }));
    const res2 = t.results(r2);
    const view = buildSessionView(HEADER, t.entries, md);
    assert.equal(view.realTurns, 2);
    assert.deepEqual(view.messages.map(m => [m.role, m.id]), [['user', p1.id], ['assistant', final1.id], ['user', p2.id], ['assistant', res2.id]]);
    const answer = view.messages[1];
    assert.deepEqual(answer.entryIds, [r1.id, res1.id, final1.id]);
    assert.equal(answer.html, '<md>Let me look.\n\nThere are **3** files.</md>');
    assert.deepEqual(answer.tools, [{ name: 'list_files', input: 'pattern: **/*', result: `output of list_files toolu_1`, isError: false }]);
    assert.equal(view.messages[0].text, 'List the files');
    assert.equal(view.messages[3].html, undefined, 'an answer with only tool calls has no text');
  });

  it('counts real turns like the runtime and marks the compaction summary', () => {
    const parent = richParent();
    const view = buildSessionView(HEADER, parent.entries, md);
    assert.equal(view.realTurns, parent.realTurns.length);
    const t = new Transcript();
    t.startup();
    t.summary();
    t.prompt('go on');
    const compacted = buildSessionView(HEADER, t.entries, md);
    assert.equal(compacted.messages[0].role, 'note');
    assert.equal(windowSkipsSummary(compacted.messages, 2), true, 'the picker\'s note: a numeric window leaves the summary out');
    assert.equal(windowSkipsSummary(compacted.messages, 'all'), false);
    assert.equal(windowSkipsSummary(view.messages, 2), false);
  });

  it('counts only the turns after the latest summary: those a numeric window can reach', () => {
    const t = new Transcript();
    t.startup();
    for (const ask of ['one', 'two', 'three']) {
      t.prompt(ask);
      t.response(text(`answer to ${ask}`));
    }
    const cut = t.entries[t.entries.length - 1];
    t.add('summary', 'user', [text('SUMMARY')]);
    t.entries[t.entries.length - 1] = { ...t.entries[t.entries.length - 1], replacesUpTo: cut.id };
    t.prompt('four');
    t.response(text('answer to four'));
    const view = buildSessionView(HEADER, t.entries, md);
    assert.equal(view.realTurns, 1);
    assert.deepEqual(view.messages.filter(m => m.role === 'user').map(m => m.text), ['one', 'two', 'three', 'four'], 'the transcript still shows everything');
  });
});

describe('panel: the palette\'s turn count', () => {
  it('offers All, 1…N and Custom…', () => {
    assert.deepEqual(turnChoices(2).map(c => c.label), ['All', '1', '2', '3', 'Custom…']);
    assert.deepEqual(turnChoices(5).map(c => c.value), ['all', '1', '2', '3', '4', '5', undefined]);
    assert.equal(turnChoices(40).length, 11, 'at most nine numbers listed');
    assert.match(turnChoices(2)[3].description, /only 2 exist/);
    assert.equal(turnsHint(1), 'This conversation has 1 real turn.');
  });

  it('validates custom counts with the fork_turns parser', () => {
    assert.equal(validateTurns('2'), undefined);
    assert.equal(validateTurns('all'), undefined);
    for (const bad of ['0', '1.5', ' 3', '03', '-1', '', 'none']) assert.match(validateTurns(bad) ?? '', /Invalid turn count/, bad);
  });
});

describe('panel: fork numbers', () => {
  it('reads elapsed time, tokens and cache share', () => {
    assert.equal(durationText(4_900), '4s');
    assert.equal(durationText(65_000), '1m 05s');
    assert.equal(durationText(3_780_000), '1h 03m');
    assert.equal(tokenText(950), '950');
    assert.equal(tokenText(1_500), '1.5k');
    assert.equal(tokenText(12_345), '12.3k');
    assert.equal(tokenText(2_000_000), '2M');
    assert.equal(turnsLabel('all'), 'all turns');
    assert.equal(turnsLabel('2'), 'last 2 turns');
    const usage = { input_tokens: 100, output_tokens: 300, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 900 };
    const line = usageLine({ modelTurns: 2, usage, firstUsage: usage });
    assert.equal(line.text, '2 model turns · 10k in / 300 out · first request 90% cached');
    assert.match(line.title, /First request: 90% of 10k input tokens/);
    assert.match(usageLine({ modelTurns: 2, usage, firstUsage: usage, context: { tokens: 150_000, window: 200_000 } }).text, /context 75%$/);
    assert.equal(usageLine({ modelTurns: 0, usage: { ...usage, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }).text, '0 model turns');
  });
});
