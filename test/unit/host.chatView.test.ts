import { strict as assert } from 'node:assert';
import { NO_FOLDER_MESSAGE, requestErrorView, turnErrorView } from '../../src/host/chat/chatErrors';
import { TurnView, contextNote, costNote, retryText, stopNote } from '../../src/host/chat/eventView';
import type { AgentEvent } from '../../src/common/agentEvents';
import { RuntimeErrorCode } from '../../src/common/protocol/runtime';
import { RuntimeUnavailableError } from '../../src/host/runtimeApi';

const usage = { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 0 };
const entry = (id: string) => ({ id, kind: 'response' as const, time: '', message: { role: 'assistant' as const, content: [] } });

describe('host: turn events → chat', () => {
  it('renders text, tool progress, approvals, retries and files; tracks ids for the metadata', () => {
    const view = new TurnView();
    const apply = (event: AgentEvent) => view.apply({ sessionId: 's1', turnId: 't', event });
    assert.deepEqual(apply({ type: 'turn_start', promptEntryId: 'p1' }), []);
    assert.equal(view.sessionId, 's1');
    assert.equal(view.lastEntryId, 'p1');
    assert.deepEqual(apply({ type: 'text_delta', text: 'Hello' }), [{ kind: 'markdown', text: 'Hello' }]);
    // Thinking shows as one progress line once its block is over (text between tool calls on adaptive models).
    assert.deepEqual(apply({ type: 'thinking_delta', text: 'hmm' }), []);
    assert.deepEqual(apply({ type: 'tool_call', callId: 'c1', name: 'read_file', category: 'read', description: 'Read README.md' }), [{ kind: 'progress', text: 'hmm' }, { kind: 'progress', text: 'Read README.md' }]);
    assert.deepEqual(apply({ type: 'tool_result', callId: 'c1', name: 'read_file', isError: false, summary: '', files: ['README.md'] }), [{ kind: 'reference', path: 'README.md' }]);
    assert.deepEqual(apply({ type: 'tool_call', callId: 'c2', name: 'edit_file', category: 'edit', description: 'Edit src/a.ts' }), [{ kind: 'progress', text: 'Edit src/a.ts' }]);
    assert.deepEqual(apply({ type: 'approval_wait', callId: 'c2', description: 'Edit src/a.ts' }), [{ kind: 'progress', text: 'Waiting for your approval…' }]);
    assert.deepEqual(apply({ type: 'tool_result', callId: 'c2', name: 'edit_file', isError: false, summary: '', files: ['src/a.ts', 'src/b.ts'] }), [
      { kind: 'markdown', text: '\n\n' }, { kind: 'anchor', path: 'src/a.ts' }, { kind: 'markdown', text: ' ' }, { kind: 'anchor', path: 'src/b.ts' }, { kind: 'markdown', text: '\n\n' },
    ]);
    // The same file again is not repeated.
    assert.deepEqual(apply({ type: 'tool_result', callId: 'c2', name: 'edit_file', isError: false, summary: '', files: ['src/a.ts'] }), []);
    assert.deepEqual(apply({ type: 'retry', attempt: 1, delayMs: 2500, error: { kind: 'rate_limit', message: 'x', status: 429 } }), [{ kind: 'progress', text: 'Rate limited, retrying in 3s…' }]);
    assert.deepEqual(apply({ type: 'entry', entry: entry('e7') }), []);
    assert.equal(view.lastEntryId, 'e7');
    assert.deepEqual(apply({ type: 'usage', usage, contextTokens: 4 }), []);
    assert.deepEqual(view.usage, usage);
    apply({ type: 'turn_end', stopReason: 'error', error: { kind: 'auth', message: 'bad', status: 401 }, lastEntryId: 'e8' });
    assert.equal(view.lastEntryId, 'e8');
    assert.equal(view.stopReason, 'error');
    assert.equal(view.error?.kind, 'auth');
  });

  it('words retries and stop reasons', () => {
    assert.equal(retryText({ kind: 'overloaded', message: '' }, 100), 'The API is overloaded, retrying in 1s…');
    assert.equal(retryText({ kind: 'server', message: '' }, 4000), 'The model request failed (server), retrying in 4s…');
    assert.match(stopNote('max_tokens') ?? '', /fork\.maxTokens/);
    assert.equal(stopNote('end_turn'), undefined);
  });
});

describe('host: chat error messages', () => {
  const base = 'http://127.0.0.1:9/';

  it('missing and rejected keys offer the Set API Key command', () => {
    for (const view of [turnErrorView({ kind: 'missing_key', message: '' }, base), requestErrorView(Object.assign(new Error('no key'), { code: RuntimeErrorCode.missingKey }))]) {
      assert.match(view.message, /No Anthropic API key is set/);
      assert.equal(view.action?.command, 'forkAgents.setApiKey');
    }
    const auth = turnErrorView({ kind: 'auth', message: 'The API key was rejected (401): invalid x-api-key', status: 401 }, base);
    assert.match(auth.message, /rejected the API key \(401\)/);
    assert.equal(auth.action?.command, 'forkAgents.setApiKey');
  });

  it('rate limits, overload, cut streams and bad requests say what to do', () => {
    assert.match(turnErrorView({ kind: 'rate_limit', message: 'm', status: 429 }, base).message, /rate limiting requests \(429\) after several retries\. Wait a minute/);
    assert.match(turnErrorView({ kind: 'overloaded', message: 'm', status: 529 }, base).message, /overloaded \(529\)/);
    assert.match(turnErrorView({ kind: 'stream_cut', message: 'm' }, base).message, /cut off mid-stream\. The partial answer was not kept/);
    const bad = turnErrorView({ kind: 'bad_request', message: 'messages: roles must alternate', status: 400 }, base);
    assert.match(bad.message, /refused the request \(400\): messages: roles must alternate/);
    assert.equal(bad.action?.command, 'forkAgents.showRuntimeLog');
  });

  it('an unreachable endpoint is named', () => {
    const view = turnErrorView({ kind: 'network', message: 'Could not reach the model endpoint: ECONNREFUSED' }, base);
    assert.match(view.message, /ANTHROPIC_BASE_URL\), then send your request again\. \(ECONNREFUSED\)$/);
    assert.match(view.message, /Could not reach the model endpoint http:\/\/127\.0\.0\.1:9\//);
    assert.deepEqual(view.action?.arguments, ['fork.anthropic.baseUrl']);
  });

  it('runtime trouble: gone mid-turn, cannot start, busy session, unknown session', () => {
    assert.match(requestErrorView(Object.assign(new Error('Pending response rejected'), { code: -32097 })).message, /runtime stopped during this request/);
    const unavailable = requestErrorView(new RuntimeUnavailableError('The Fork Agents runtime could not be started: boom'));
    assert.equal(unavailable.message, 'The Fork Agents runtime could not be started: boom');
    assert.equal(unavailable.action?.command, 'forkAgents.showRuntimeLog');
    assert.equal(requestErrorView(Object.assign(new Error('A turn is already running in this session; wait for it or cancel it.'), { code: -32600 })).message,
      'A turn is already running in this session; wait for it or cancel it.');
    assert.match(requestErrorView(Object.assign(new Error('Session x not found.'), { code: -32602 })).message, /could not continue this chat: Session x not found\. Start a new chat/);
    assert.match(NO_FOLDER_MESSAGE, /Open a folder first/);
  });
});

describe('chat context line: how full the context window is', () => {
  it('appears only above half of the window', () => {
    assert.equal(contextNote(undefined), undefined);
    assert.equal(contextNote({ tokens: 100_000, window: 200_000 }), undefined);
    assert.match(contextNote({ tokens: 124_000, window: 200_000 }) ?? '', /Context: 62% of 200k tokens used/);
  });
});

describe('chat cost line', () => {
  it('says when the cache writes cost more this turn instead of a negative saving', () => {
    // A first turn: $0.0386 with cache writes, $0.0311 had nothing been cached.
    const first = { usd: 0.03855, uncachedUsd: 0.03105 };
    const note = costNote({ turn: first, chat: first }, 'claude-sonnet-4');
    assert.equal(note, '\n\n_Cost on claude-sonnet-4: $0.039 this turn · $0.039 this chat with its forks · cache writes cost $0.0075 more this turn; later turns read them._');
    const later = costNote({ turn: { usd: 0.00405, uncachedUsd: 0.03105 }, chat: { usd: 0.0426, uncachedUsd: 0.0621 } }, 'claude-sonnet-4');
    assert.match(later, /· the prompt cache saved \$0\.027 this turn\._$/);
  });
});
