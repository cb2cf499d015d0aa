// docs/design.md §4.3: closing the boundary — the fork's history is a valid conversation ending with the directive.
import { strict as assert } from 'node:assert';
import type { Entry, TextBlock, ToolResultBlock, ToolUseBlock } from '../../src/common/transcript';
import { closeBoundary } from '../../src/runtime/fork/history/close';
import { FORK_STARTED_RESULT, NOT_EXECUTED_RESULT, renderDirective } from '../../src/runtime/fork/history/directive';
import { selectHistory } from '../../src/runtime/fork/history/select';
import { entriesToMessages } from '../../src/runtime/agent/request';
import { validateMessages } from '../fakes/validateMessages';
import { Transcript, compactedParent, richParent, text } from './forkFixtures';

const DIRECTIVE = renderDirective('Write unit tests for parse().');
const ids = (entries: readonly Entry[]) => entries.map(e => e.id);
const usesOf = (entry: Entry) => entry.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');

function assertValidConversation(inherited: readonly Entry[], closing: Entry['message']): void {
  validateMessages([...entriesToMessages(inherited), closing], { hasTools: true, thinkingEnabled: false });
}

describe('fork: closing the boundary (docs/design.md §4.3)', () => {
  it('the placeholder texts are the constants of docs/design.md §4.3', () => {
    assert.equal(FORK_STARTED_RESULT, 'Fork started — processing in background');
    assert.match(NOT_EXECUTED_RESULT, /not executed in this fork/i);
    assert.match(NOT_EXECUTED_RESULT, /the parent owns this call/);
    assert.match(NOT_EXECUTED_RESULT, /do not retry it/);
  });

  it('unanswered tool calls: one user message with a tool_result for every tool_use, then the directive', () => {
    const parent = richParent();
    const { inherited, closing } = closeBoundary(parent.entries, DIRECTIVE);
    const uses = usesOf(parent.current);
    assert.equal(uses.length, 3);
    assert.equal(closing.role, 'user');
    assert.equal(closing.content.length, uses.length + 1);
    const results = closing.content.slice(0, -1) as ToolResultBlock[];
    assert.ok(results.every(b => b.type === 'tool_result'));
    assert.deepEqual(results.map(r => r.tool_use_id), uses.map(u => u.id), 'one result per call, in call order');
    assert.deepEqual(closing.content[closing.content.length - 1], { type: 'text', text: DIRECTIVE });
    assert.equal(inherited[inherited.length - 1], parent.current, 'the assistant message stays the last inherited entry');
    assertValidConversation(inherited, closing);
  });

  it('the Agent fork calls get FORK_STARTED_RESULT; read_file gets NOT_EXECUTED_RESULT', () => {
    const parent = richParent();
    const { closing } = closeBoundary(parent.entries, DIRECTIVE);
    const byId = new Map((closing.content.slice(0, -1) as ToolResultBlock[]).map(r => [r.tool_use_id, r.content]));
    for (const use of usesOf(parent.current)) {
      const isFork = use.name === 'Agent' && (use.input as { subagent_type?: string }).subagent_type === 'fork';
      assert.equal(byId.get(use.id), isFork ? FORK_STARTED_RESULT : NOT_EXECUTED_RESULT, `${use.name} ${use.id}`);
    }
    assert.equal([...byId.values()].filter(c => c === FORK_STARTED_RESULT).length, 2);
  });

  it('an Agent call for a regular subagent, and any other tool, is "not executed in this fork"', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Explore and edit.');
    const response = t.response(
      t.call('Agent', { subagent_type: 'explore', description: 'map', prompt: 'Map the repo.' }),
      t.call('Agent', { description: 'default type', prompt: 'Do it.' }),
      t.call('write_file', { path: 'a.ts', content: 'x' }),
      t.forkCall('one fork', 'Do one thing.'),
      t.call('bash', { command: 'npm test' }),
    );
    const { closing } = closeBoundary(t.entries, DIRECTIVE);
    const contents = (closing.content.slice(0, -1) as ToolResultBlock[]).map(r => r.content);
    assert.deepEqual(contents, [NOT_EXECUTED_RESULT, NOT_EXECUTED_RESULT, NOT_EXECUTED_RESULT, FORK_STARTED_RESULT, NOT_EXECUTED_RESULT]);
    assert.equal(usesOf(response).length, 5);
    assertValidConversation(t.entries, closing);
  });

  it('placeholders are constants: two sibling closings from one point are identical except the directive', () => {
    const parent = richParent();
    const a = closeBoundary(parent.entries, renderDirective('Write unit tests for parse().'));
    const b = closeBoundary(parent.entries, renderDirective('Document the validation rules.'));
    assert.deepEqual(a.closing.content.slice(0, -1), b.closing.content.slice(0, -1));
    assert.notDeepEqual(a.closing.content[a.closing.content.length - 1], b.closing.content[b.closing.content.length - 1]);
    assert.deepEqual(ids(a.inherited), ids(b.inherited));
    for (let i = 0; i < a.inherited.length; i++) assert.equal(a.inherited[i], b.inherited[i]);
  });

  it('placeholder results carry no ids or times beyond tool_use_id', () => {
    const { closing } = closeBoundary(richParent().entries, DIRECTIVE);
    for (const block of closing.content.slice(0, -1) as ToolResultBlock[]) {
      assert.deepEqual(Object.keys(block).sort(), ['content', 'tool_use_id', 'type']);
      assert.ok(typeof block.content === 'string' && !block.content.includes(block.tool_use_id));
      assert.doesNotMatch(block.content as string, /\d/);
    }
  });

  it('an unanswered trailing real user prompt is dropped', () => {
    const { entries, trailing } = compactedParent();
    const { inherited, closing } = closeBoundary(entries, DIRECTIVE);
    assert.deepEqual(ids(inherited), ids(entries.slice(0, -1)));
    assert.ok(!inherited.includes(trailing));
    assert.deepEqual(closing, { role: 'user', content: [{ type: 'text', text: DIRECTIVE }] });
  });

  it('the trailing prompt is dropped from a numeric window too', () => {
    const { entries, trailing } = compactedParent();
    const { inherited } = closeBoundary(selectHistory(entries, 1), DIRECTIVE);
    assert.deepEqual(ids(inherited), [entries[0].id]);
    assert.ok(!inherited.includes(trailing));
  });

  it('an answered prompt is kept: after a plain answer the directive is a new user message', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Explain parse().');
    t.response(text('It parses.'));
    const { inherited, closing } = closeBoundary(t.entries, DIRECTIVE);
    assert.deepEqual(ids(inherited), ids(t.entries));
    assert.deepEqual(closing, { role: 'user', content: [{ type: 'text', text: DIRECTIVE }] });
    assertValidConversation(inherited, closing);
  });

  it('trailing entries that are not real turns (tool results, reminders) are kept; the directive comes after them', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Run the tests.');
    const response = t.response(t.call('bash', { command: 'npm test' }));
    t.results(response);
    t.notification('Scope: x\nResult: done.');
    const { inherited, closing } = closeBoundary(t.entries, DIRECTIVE);
    assert.deepEqual(ids(inherited), ids(t.entries));
    assert.deepEqual(closing.content, [{ type: 'text', text: DIRECTIVE }], 'answered calls get no placeholders');
    assertValidConversation(inherited, closing);
  });

  it('zero real turns: startup alone plus the directive', () => {
    const t = new Transcript();
    t.startup();
    const { inherited, closing } = closeBoundary(t.entries, DIRECTIVE);
    assert.deepEqual(ids(inherited), ids(t.entries));
    assert.deepEqual(closing.content, [{ type: 'text', text: DIRECTIVE }]);
    assertValidConversation(inherited, closing);
  });

  it('the directive block is always the last block of the closing message', () => {
    for (const entries of [richParent().entries, compactedParent().entries, richParent().entries.slice(0, 4)]) {
      const { closing } = closeBoundary(entries, DIRECTIVE);
      assert.equal((closing.content[closing.content.length - 1] as TextBlock).text, DIRECTIVE);
      assert.equal(closing.content.filter(b => b.type === 'text').length, 1);
    }
  });

  it('numeric windows of a mid-turn parent close to a valid conversation', () => {
    const parent = richParent();
    for (const turns of [1, 2, 3, 'all'] as const) {
      const { inherited, closing } = closeBoundary(selectHistory(parent.entries, turns), DIRECTIVE);
      assert.equal(inherited[inherited.length - 1], parent.current, String(turns));
      assertValidConversation(inherited, closing);
    }
  });

  it('inherited entries are shared (===) and the selection array passed in is not mutated', () => {
    const { entries } = compactedParent();
    const selected = selectHistory(entries, 'all');
    const before = selected.slice();
    const { inherited } = closeBoundary(selected, DIRECTIVE);
    assert.notEqual(inherited, selected);
    assert.equal(selected.length, before.length);
    for (let i = 0; i < before.length; i++) assert.equal(selected[i], before[i]);
    for (const entry of inherited) assert.ok(entries.includes(entry) && Object.isFrozen(entry));
  });
});
