// The panel's message protocol (src/common/protocol/webview.ts): what the host accepts from the webview,
// and the output ops both sides agree on.
import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/common/agentEvents';
import { applyOutputOps } from '../../src/common/outputOps';
import { isWireMessage, notificationMessage, panelForkStart, panelReady, parseToHost, requestMessage } from '../../src/common/protocol/webview';
import type { OutputItem, OutputOp } from '../../src/common/protocol/webview';
import { OutputLog, compactOps } from '../../src/host/panel/outputLog';

describe('panel: protocol guards', () => {
  it('accepts the typed requests and notifications the webview sends', () => {
    const start = parseToHost(requestMessage(panelForkStart, 7, { directive: 'write tests', forkTurns: '2', isolation: 'shared' }));
    assert.ok(start.ok);
    assert.equal(start.message.kind, 'request');
    assert.deepEqual(start.message.params, { directive: 'write tests', forkTurns: '2', isolation: 'shared' });
    assert.ok(parseToHost(requestMessage(panelForkStart, 8, { directive: 'x', forkTurns: 'all', isolation: 'shared', model: 'claude-haiku-4-5' })).ok, 'another model');
    assert.ok(parseToHost(notificationMessage(panelReady, {})).ok);
    assert.ok(parseToHost({ kind: 'notification', method: 'picker/changed', params: { forkTurns: null, isolation: 'worktree' } }).ok);
    assert.ok(parseToHost({ kind: 'request', id: 1, method: 'approval/answer', params: { callId: 'toolu_1', approved: false } }).ok);
    assert.ok(parseToHost({ kind: 'request', id: 2, method: 'tournament/apply', params: { groupId: 'g-1', forkId: 'f-1' } }).ok, 'one attempt whole');
    assert.ok(parseToHost({ kind: 'request', id: 3, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ attempt: 'f-1', hunks: [1, 3] }, { attempt: 'f-2', hunks: [2] }] } }).ok, 'ticked hunks');
  });

  const rejects: [string, unknown, RegExp][] = [
    ['not an object', 'panel/ready', /must be an object/],
    ['an array', [], /must be an object/],
    ['no method', { kind: 'notification' }, /method must be a string/],
    ['an unknown method', { kind: 'notification', method: 'fork/delete', params: {} }, /unknown method/],
    ['an inherited property name', { kind: 'notification', method: 'constructor', params: {} }, /unknown method/],
    ['__proto__', { kind: 'notification', method: '__proto__', params: {} }, /unknown method/],
    ['a request sent as a notification', { kind: 'notification', method: 'panel/forkStart', params: {} }, /must be sent as a request/],
    ['a request without an id', { kind: 'request', method: 'panel/forkCancel', params: { forkId: 'f-1' } }, /needs an integer id/],
    ['a fractional id', { kind: 'request', id: 1.5, method: 'panel/forkCancel', params: { forkId: 'f-1' } }, /needs an integer id/],
    ['params that are not an object', { kind: 'request', id: 1, method: 'panel/forkCancel', params: 'f-1' }, /params must be an object/],
    ['an empty directive', { kind: 'request', id: 1, method: 'panel/forkStart', params: { directive: '  ', forkTurns: '2', isolation: 'shared' } }, /directive must be a non-empty string/],
    ['a numeric fork_turns', { kind: 'request', id: 1, method: 'panel/forkStart', params: { directive: 'x', forkTurns: 2, isolation: 'shared' } }, /forkTurns must be a string/],
    ['an unknown isolation', { kind: 'request', id: 1, method: 'panel/forkStart', params: { directive: 'x', forkTurns: '2', isolation: 'docker' } }, /isolation must be one of/],
    ['a model id with a space', { kind: 'request', id: 1, method: 'panel/forkStart', params: { directive: 'x', forkTurns: '2', isolation: 'shared', model: 'two words' } }, /is not a model id/],
    ['a numeric model', { kind: 'request', id: 1, method: 'panel/forkStart', params: { directive: 'x', forkTurns: '2', isolation: 'shared', model: 4 } }, /model must be a string/],
    ['a string "approved"', { kind: 'request', id: 2, method: 'approval/answer', params: { callId: 'c', approved: 'yes' } }, /approved must be a boolean/],
    ['an unknown action', { kind: 'request', id: 3, method: 'panel/forkAction', params: { forkId: 'f-1', action: 'rm -rf' } }, /action must be one of/],
    ['a tournament apply with neither an attempt nor hunks', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1' } }, /either forkId or hunks/],
    ['a tournament apply with both', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', forkId: 'f-1', hunks: [{ attempt: 'f-1', hunks: [1] }] } }, /either forkId or hunks/],
    ['an empty choice of hunks', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [] } }, /hunks must be a list of 1 to 8/],
    ['a hunk number 0', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ attempt: 'f-1', hunks: [0] }] } }, /whole numbers from 1/],
    ['a hunk number as text', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ attempt: 'f-1', hunks: ['1'] }] } }, /whole numbers from 1/],
    ['"all" hunks (the panel ticks hunks one by one)', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ attempt: 'f-1', hunks: 'all' }] } }, /hunk numbers/],
    ['a choice without an attempt', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ hunks: [1] }] } }, /needs an attempt/],
    ['an attempt named twice', { kind: 'request', id: 4, method: 'tournament/apply', params: { groupId: 'g-1', hunks: [{ attempt: 'f-1', hunks: [1] }, { attempt: 'f-1', hunks: [2] }] } }, /names an attempt twice/],
  ];
  for (const [what, raw, error] of rejects) {
    it(`rejects ${what}`, () => {
      const parsed = parseToHost(raw);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.error, error);
    });
  }

  it('keeps the id of a rejected request so the webview gets an answer', () => {
    const parsed = parseToHost({ kind: 'request', id: 9, method: 'panel/forkSend', params: { forkId: 'f-1' } });
    assert.deepEqual(parsed, { ok: false, error: 'panel/forkSend: message must be a non-empty string', id: 9 });
  });

  it('isWireMessage checks the envelope of host messages', () => {
    assert.ok(isWireMessage({ kind: 'response', id: 1, result: {} }));
    assert.ok(isWireMessage({ kind: 'notification', method: 'forks/state', params: {} }));
    assert.ok(!isWireMessage({ kind: 'response' }));
    assert.ok(!isWireMessage({ type: 'forks/state' }));
    assert.ok(!isWireMessage(null));
  });
});

describe('panel: output log and ops', () => {
  const events: AgentEvent[] = [
    { type: 'request_start', index: 0 },
    { type: 'text_delta', text: 'Let me ' },
    { type: 'text_delta', text: 'look.' },
    { type: 'tool_call', callId: 'c1', name: 'list_files', category: 'read', description: 'List **/*' },
    { type: 'tool_result', callId: 'c1', name: 'list_files', isError: false, summary: '3 files', files: [] },
    { type: 'request_start', index: 1 },
    { type: 'retry', attempt: 1, delayMs: 2000, error: { kind: 'rate_limit', message: '429' } },
    { type: 'text_delta', text: 'Scope: done' },
    { type: 'turn_end', stopReason: 'end_turn' },
  ];

  it('applying the ops rebuilds what the log holds', () => {
    const log = new OutputLog();
    const items: OutputItem[] = [];
    for (const event of events) applyOutputOps(items, log.apply(event));
    assert.deepEqual(items, log.snapshot());
    assert.deepEqual(items.map(i => i.kind), ['text', 'tool', 'note', 'text']);
    assert.equal(items[1].kind === 'tool' && items[1].status, 'ok');
    assert.equal(items[3].kind === 'text' && items[3].text, 'Scope: done');
  });

  it('compacted batches rebuild the same items as the raw ops', () => {
    const log = new OutputLog();
    const ops: OutputOp[] = events.flatMap(event => log.apply(event));
    const raw: OutputItem[] = [];
    const compacted: OutputItem[] = [];
    applyOutputOps(raw, ops);
    applyOutputOps(compacted, compactOps(ops));
    assert.deepEqual(compacted, raw);
    assert.ok(compactOps(ops).length < ops.length);
  });

  it('stays bounded: old items are trimmed, and receivers trim alike', () => {
    const log = new OutputLog({ maxItems: 5, maxChars: 1_000, maxTextItemChars: 100 });
    const items: OutputItem[] = [];
    for (let i = 0; i < 50; i++) {
      applyOutputOps(items, log.apply({ type: 'tool_call', callId: `c${i}`, name: 'read_file', category: 'read', description: `Read f${i}` }));
      for (let j = 0; j < 30; j++) applyOutputOps(items, log.apply({ type: 'text_delta', text: 'xxxxxxxxxx' }));
    }
    assert.deepEqual(items, log.snapshot());
    assert.ok(items.length <= 5, `${items.length} items kept`);
    assert.ok(items.reduce((n, i) => n + (i.kind === 'text' ? i.text.length : 0), 0) <= 1_000);
  });
});
