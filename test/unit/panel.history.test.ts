// A fork's output from before the window opened (fork/history): rebuilt from its entries as the events
// its run emitted, then merged with the live events that arrived while it was fetched — nothing twice.
import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/common/agentEvents';
import type { ForkSummary } from '../../src/common/forks';
import { applyOutputOps } from '../../src/common/outputOps';
import type { OutputItem, OutputOp, WireMessage } from '../../src/common/protocol/webview';
import type { Entry } from '../../src/common/transcript';
import { zeroUsage } from '../../src/common/transcript';
import { PanelModel } from '../../src/host/panel/panelModel';
import { UncommittedOutput, outputHistory } from '../../src/runtime/fork/outputHistory';
import { FakeClock } from './panelFakes';

const at = '2026-01-01T00:00:00.000Z';
const prompt = (id: string, text: string): Entry => ({ id, kind: 'prompt', time: at, message: { role: 'user', content: [{ type: 'text', text }] } });
const entries: Entry[] = [
  { id: 'e1', kind: 'response', time: at, message: { role: 'assistant', content: [
    { type: 'text', text: 'Reading the notes first.' },
    { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.md' } },
    { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'false' } },
  ] } },
  { id: 'e2', kind: 'tool_results', time: at, message: { role: 'user', content: [
    { type: 'tool_result', tool_use_id: 'toolu_1', content: 'The secret word is pelican.\nMore.' },
    { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'exit code 1' }], is_error: true },
  ] } },
  prompt('e3', 'continue please'),
  { id: 'e4', kind: 'response', time: at, message: { role: 'assistant', content: [{ type: 'text', text: 'Scope: notes.\nResult: pelican.' }] } },
];

/** What the webview holds after applying every fork/output the model posted. */
function webviewItems(posted: readonly WireMessage[], forkId: string): OutputItem[] {
  const items: OutputItem[] = [];
  for (const m of posted) {
    if (m.kind !== 'notification' || m.method !== 'fork/output') continue;
    const params = m.params as { forkId: string; ops: OutputOp[] };
    if (params.forkId === forkId) applyOutputOps(items, params.ops);
  }
  return items;
}
const shown = (items: readonly OutputItem[]) => items.map(i => (i.kind === 'tool' ? `tool ${i.description} ${i.status}${i.summary ? `: ${i.summary}` : ''}` : `${i.kind} ${i.text}`));

describe('panel: output history', () => {
  it('rebuilds text, tool calls with descriptions and results, and skips prompts', () => {
    const events = outputHistory(entries);
    assert.deepEqual(events.map(e => e.type), ['request_start', 'text_delta', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'request_start', 'text_delta']);
    const calls = events.filter((e): e is Extract<AgentEvent, { type: 'tool_call' }> => e.type === 'tool_call');
    assert.match(calls[0].description, /notes\.md/);
    assert.equal(calls[1].category, 'exec');
    const results = events.filter((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    assert.deepEqual(results.map(r => [r.name, r.isError, r.summary]), [['read_file', false, 'The secret word is pelican.'], ['bash', true, 'exit code 1']]);
    assert.deepEqual(outputHistory(entries, 1).map(e => e.type), ['request_start', 'text_delta'], 'only the tail of a long run');
    assert.deepEqual(outputHistory([]), []);
  });

  it('keeps what a run emitted since its last commit, text merged, and forgets it at the next commit', () => {
    const uncommitted = new UncommittedOutput();
    uncommitted.add({ type: 'request_start', index: 0 });
    uncommitted.add({ type: 'thinking_delta', text: 'hmm' });
    uncommitted.add({ type: 'text_delta', text: 'Sco' });
    uncommitted.add({ type: 'text_delta', text: 'pe' });
    uncommitted.add({ type: 'usage', usage: zeroUsage(), contextTokens: 1 });
    assert.deepEqual(uncommitted.list(), [{ type: 'request_start', index: 0 }, { type: 'text_delta', text: 'Scope' }]);
    uncommitted.add({ type: 'entry', entry: entries[0] });
    assert.deepEqual(uncommitted.list(), []);
  });

  function setup() {
    const clock = new FakeClock();
    const posted: WireMessage[] = [];
    const model = new PanelModel({ post: m => posted.push(m), renderMarkdown: text => text, clock });
    return { clock, posted, model };
  }
  const summary = (state: ForkSummary['state'], error?: string): ForkSummary => ({
    id: 'f-1', kind: 'fork', name: 'f', parentSessionId: 's', origin: 'user', forkTurns: 'all', isolation: 'shared', root: '/w',
    directive: 'd', state, createdAt: at, modelTurns: 2, usage: zeroUsage(), error,
  });

  it('replaces what the window had and keeps only the live events newer than the history', () => {
    const { clock, posted, model } = setup();
    // The run so far: e1 and e2 committed, then a response streaming "Scope" (events up to seq 12).
    const history = { events: [...outputHistory(entries.slice(0, 2)), { type: 'request_start', index: 1 }, { type: 'text_delta', text: 'Scope' }] as AgentEvent[], seq: 12 };
    model.onForkEvent('f-1', { type: 'text_delta', text: 'stale partial ' }, 5);
    clock.advance(0);
    model.beginHistory('f-1');
    model.onForkEvent('f-1', { type: 'request_start', index: 1 }, 11);
    model.onForkEvent('f-1', { type: 'text_delta', text: 'Scope' }, 12);
    model.onForkEvent('f-1', { type: 'text_delta', text: ': ' }, 13);
    clock.advance(100);
    assert.deepEqual(shown(webviewItems(posted, 'f-1')), ['text stale partial '], 'held until the history is in');
    model.endHistory('f-1', history);
    model.onForkEvent('f-1', { type: 'text_delta', text: 'notes.' }, 14);
    clock.advance(100);
    const items = webviewItems(posted, 'f-1');
    assert.deepEqual(shown(items), [
      'text Reading the notes first.',
      'tool Read notes.md ok: The secret word is pelican.',
      'tool Run false error: exit code 1',
      'text Scope: notes.',
    ]);
    assert.deepEqual(model.snapshot({ defaults: { forkTurns: 'all', isolation: 'shared' }, worktreeActions: true }).outputs['f-1'], items, 'a fresh view gets the same');
  });

  it('shows a call finished before the window opened as done, though its results are not committed yet', () => {
    const { clock, posted, model } = setup();
    // e1 asked for two calls; the first has run, the second waits for approval: no tool_results entry yet.
    const history = { events: [...outputHistory(entries.slice(0, 1)),
      { type: 'tool_call', callId: 'toolu_1', name: 'read_file', category: 'read', description: 'Read notes.md' },
      { type: 'tool_result', callId: 'toolu_1', name: 'read_file', isError: false, summary: 'The secret word is pelican.', files: [] },
      { type: 'tool_call', callId: 'toolu_2', name: 'bash', category: 'exec', description: 'Run false' },
      { type: 'approval_wait', callId: 'toolu_2', description: 'Run false' },
    ] as AgentEvent[], seq: 9 };
    model.beginHistory('f-1');
    model.endHistory('f-1', history);
    clock.advance(0);
    assert.deepEqual(shown(webviewItems(posted, 'f-1')), ['text Reading the notes first.', 'tool Read notes.md ok: The secret word is pelican.', 'tool Run false running'], 'each call once');
  });

  it('applies the held events when the history could not be read, and notes how a finished fork ended', () => {
    const { clock, posted, model } = setup();
    model.setFork(summary('running'));
    model.beginHistory('f-1');
    model.onForkEvent('f-1', { type: 'text_delta', text: 'live' }, 1);
    model.setFork(summary('cancelled'));
    model.endHistory('f-1');
    clock.advance(0);
    assert.deepEqual(shown(webviewItems(posted, 'f-1')), ['text live', 'note Stopped.']);

    const other = setup();
    other.model.setFork(summary('failed', 'The API failed (500).'));
    other.model.beginHistory('f-1');
    other.model.endHistory('f-1', { events: outputHistory(entries), seq: 0 });
    other.clock.advance(0);
    assert.deepEqual(shown(webviewItems(other.posted, 'f-1')).at(-1), 'note The API failed (500).');
  });
});
