// A worktree's setup output in a fork's output log — its own console item beside the model's
// streamed text (both can run at once), notes for start and end — rebuilt exactly by the webview's ops.
import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/common/agentEvents';
import { commandLabel, workspaceLine } from '../../src/common/forkDisplay';
import { applyOutputOps } from '../../src/common/outputOps';
import type { OutputItem } from '../../src/common/protocol/webview';
import { OutputLog } from '../../src/host/panel/outputLog';

describe('panel: worktree setup output', () => {
  it('keeps setup output and the model\'s text apart while both stream, and the webview rebuilds the same items', () => {
    const log = new OutputLog();
    const received: OutputItem[] = [];
    const events: AgentEvent[] = [
      { type: 'setup_start', command: 'npm ci' },
      { type: 'request_start', index: 0 },
      { type: 'setup_output', text: 'added 1 ' },
      { type: 'text_delta', text: 'Looking at ' },
      { type: 'setup_output', text: 'package\n' },
      { type: 'text_delta', text: 'the tests.' },
      { type: 'setup_end', command: 'npm ci', exitCode: 0, timedOut: false, durationMs: 1234 },
    ];
    for (const event of events) applyOutputOps(received, log.apply(event));
    assert.deepEqual(received, log.snapshot());
    const shape = received.map(item => (item.kind === 'text' ? [item.console ? 'console' : 'text', item.text] : [item.kind, item.kind === 'note' ? item.text : '']));
    assert.deepEqual(shape, [
      ['note', 'Setup: npm ci'],
      ['console', 'added 1 package\n'],
      ['text', 'Looking at the tests.'],
      ['note', 'Setup npm ci exited with code 0 (1.2 s)'],
    ]);
  });

  it('marks a failed or timed-out setup as an error note', () => {
    const log = new OutputLog();
    log.apply({ type: 'setup_end', command: 'npm ci', exitCode: 3, timedOut: false, durationMs: 10 });
    log.apply({ type: 'setup_end', command: 'make', exitCode: null, timedOut: true, durationMs: 600_000 });
    const notes = log.snapshot().map(item => (item.kind === 'note' ? [item.tone, item.text] : []));
    assert.deepEqual(notes, [['error', 'Setup npm ci exited with code 3 (0.0 s)'], ['error', 'Setup make timed out (600.0 s)']]);
  });

  it('says what the fork\'s workspace is doing in one line', () => {
    assert.equal(workspaceLine({ state: 'running', setup: { state: 'running', command: 'npm ci' }, portBase: 20020 }), 'setup: npm ci (running) · port 20020');
    assert.equal(workspaceLine({ state: 'completed', setup: { state: 'done', command: 'npm ci', exitCode: 0 }, portBase: 20020, endedProcesses: 2 }),
      'setup: npm ci (exit code 0) · ended 2 processes it left running');
    assert.equal(workspaceLine({ state: 'failed', setup: { state: 'failed', command: 'npm ci', exitCode: 1 } }), 'setup: npm ci (failed, exit code 1)');
    assert.equal(workspaceLine({ state: 'completed' }), '');
    assert.equal(commandLabel('x'.repeat(80)).length, 60);
    assert.equal(commandLabel('one\ntwo'), 'one…');
  });
});
