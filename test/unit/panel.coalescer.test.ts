// The panel's streaming coalescer: at most ~20 flushes a second per fork, nothing lost,
// nothing reordered, and output never overtaken by the state that ends it.
import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/common/agentEvents';
import type { ForkSummary } from '../../src/common/forks';
import { applyOutputOps } from '../../src/common/outputOps';
import type { OutputItem, OutputOp, WireMessage } from '../../src/common/protocol/webview';
import { zeroUsage } from '../../src/common/transcript';
import { Coalescer } from '../../src/host/panel/coalescer';
import type { Clock } from '../../src/host/panel/coalescer';
import { PanelModel } from '../../src/host/panel/panelModel';
import { FakeClock } from './panelFakes';

describe('panel: coalescer', () => {
  it('flushes a quiet key on the next tick, then at most once per interval', () => {
    const clock = new FakeClock();
    const flushes: { at: number; items: number[] }[] = [];
    const c = new Coalescer<number>((_key, items) => flushes.push({ at: clock.now(), items }), 50, clock);
    c.add('f', 1);
    clock.advance(0);
    assert.deepEqual(flushes, [{ at: 0, items: [1] }]);
    // A steady stream, one item a millisecond for a second.
    for (let i = 2; i <= 1001; i++) {
      c.add('f', i);
      clock.advance(1);
    }
    clock.advance(100);
    const all = flushes.flatMap(f => f.items);
    assert.deepEqual(all, Array.from({ length: 1001 }, (_, i) => i + 1), 'every item once, in order');
    const gaps = flushes.slice(1).map((f, i) => f.at - flushes[i].at);
    assert.ok(gaps.every(gap => gap >= 50), `flushes at least 50 ms apart: ${gaps.join(', ')}`);
    const inFirstSecond = flushes.filter(f => f.at < 1000).length;
    assert.ok(inFirstSecond <= 21, `${inFirstSecond} flushes in one second`);
  });

  it('never flushes before the slot, even when a timer fires early', () => {
    const clock = new FakeClock();
    // Like libuv's cached loop time: a long timer can come due a couple of milliseconds before it was asked for.
    const early: Clock = { now: () => clock.now(), clearTimeout: h => clock.clearTimeout(h), setTimeout: (fn, ms) => clock.setTimeout(fn, ms >= 10 ? ms - 2 : ms) };
    const times: number[] = [];
    const c = new Coalescer<number>(() => times.push(clock.now()), 50, early);
    for (let i = 0; i < 300; i++) {
      c.add('f', i);
      clock.advance(1);
    }
    clock.advance(100);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.ok(gaps.every(gap => gap >= 50), `gaps: ${gaps.join(', ')}`);
  });

  it('keeps keys independent, and discard drops one key\'s batch', () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const c = new Coalescer<string>((key, items) => seen.push(`${key}@${clock.now()}:${items.join('')}`), 50, clock);
    c.add('a', 'x');
    c.add('b', 'y');
    clock.advance(10);
    c.add('a', 'z');
    c.add('b', 'w');
    c.discard('b');
    clock.advance(100);
    assert.deepEqual(seen, ['a@0:x', 'b@0:y', 'a@50:z']);
    assert.equal(clock.pending(), 0);
  });
});

function fork(id: string, state: ForkSummary['state'], report?: string): ForkSummary {
  return {
    id, kind: 'fork', name: id, parentSessionId: 's-1', origin: 'user', forkTurns: 'all', isolation: 'shared', root: '/w',
    directive: 'd', state, createdAt: '2025-01-01T00:00:00.000Z', modelTurns: 0, usage: zeroUsage(), report,
  };
}

describe('panel: model', () => {
  function setup() {
    const clock = new FakeClock();
    const posted: WireMessage[] = [];
    const model = new PanelModel({ post: m => posted.push(m), renderMarkdown: text => `<p>${text}</p>`, clock });
    return { clock, posted, model };
  }
  const delta = (text: string): AgentEvent => ({ type: 'text_delta', text });

  it('batches a burst of deltas into one fork/output and rebuilds the text exactly', () => {
    const { clock, posted, model } = setup();
    for (const piece of ['Scope: ', 'the ', 'parser', '.']) model.onForkEvent('f-1', delta(piece));
    clock.advance(0);
    for (let i = 0; i < 200; i++) {
      model.onForkEvent('f-1', delta(`${i} `));
      clock.advance(1);
    }
    clock.advance(60);
    const outputs = posted.filter(m => m.kind === 'notification' && m.method === 'fork/output');
    assert.ok(outputs.length <= 6, `${outputs.length} posts for 204 deltas in ~0.26 s`);
    const items: OutputItem[] = [];
    for (const m of outputs) applyOutputOps(items, (m as { params: { ops: OutputOp[] } }).params.ops);
    assert.equal(items.length, 1);
    assert.equal(items[0].kind === 'text' && items[0].text, `Scope: the parser.${Array.from({ length: 200 }, (_, i) => `${i} `).join('')}`);
  });

  it('flushes a fork\'s output and summary together, output first, and renders its report once', () => {
    const { clock, posted, model } = setup();
    model.onForkEvent('f-1', delta('a'));
    clock.advance(0);
    model.onForkEvent('f-1', delta('b'));
    model.setFork(fork('f-1', 'running'));
    model.setFork(fork('f-1', 'completed', '**done**'));
    assert.equal(posted.length, 1, 'the second batch waits for its slot');
    clock.advance(50);
    const methods = posted.map(m => (m.kind === 'notification' ? m.method : m.kind));
    assert.deepEqual(methods, ['fork/output', 'fork/output', 'forks/state'], 'one summary for two changes, after the output');
    const row = (posted[2] as { params: { fork: { state: string }; reportHtml?: string } }).params;
    assert.equal(row.fork.state, 'completed');
    assert.equal(row.reportHtml, '<p>**done**</p>');
  });

  it('a snapshot carries the output so far and drops the pending batch (no double text)', () => {
    const { clock, posted, model } = setup();
    model.setFork(fork('f-1', 'running'));
    model.onForkEvent('f-1', delta('hello'));
    const snapshot = model.snapshot({ defaults: { forkTurns: 'all', isolation: 'shared' }, worktreeActions: false });
    clock.advance(100);
    assert.deepEqual(snapshot.outputs['f-1'], [{ seq: 1, kind: 'text', text: 'hello' }]);
    assert.equal(posted.filter(m => m.kind === 'notification' && m.method === 'fork/output').length, 0);
  });

  it('notes in the output how a fork that streamed here was stopped or failed', () => {
    const { clock, posted, model } = setup();
    model.setFork(fork('f-1', 'running'));
    model.onForkEvent('f-1', delta('working'));
    model.setFork(fork('f-1', 'cancelled'));
    clock.advance(0);
    const ops = posted.flatMap(m => (m.kind === 'notification' && m.method === 'fork/output' ? (m.params as { ops: OutputOp[] }).ops : []));
    const items: OutputItem[] = [];
    applyOutputOps(items, ops);
    assert.deepEqual(items.map(i => (i.kind === 'note' ? `note:${i.text}` : i.kind)), ['text', 'note:Stopped.']);
  });

  it('does not let a late fork/start answer undo a newer fork/state', () => {
    const { model } = setup();
    model.setFork(fork('f-1', 'running'));
    model.addForkIfNew(fork('f-1', 'queued'));
    assert.equal(model.fork('f-1')?.state, 'running');
  });
});
