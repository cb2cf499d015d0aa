// A parent turn end to end: runtime process + real SDK + fake server + real files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ToolResultBlock } from '../../src/common/transcript';
import { useSharedHarness } from './harness';
import { call, say } from './script';

function toolResults(body: { messages: { role: string; content: { type: string }[] }[] }): ToolResultBlock[] {
  const last = body.messages[body.messages.length - 1];
  return last.content.filter(b => b.type === 'tool_result') as ToolResultBlock[];
}

function resultText(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : block.content.map(b => (b.type === 'text' ? b.text : '')).join('');
}

describe('runtime: a parent turn', function () {
  this.timeout(30_000);
  const h = useSharedHarness({ fake: { minCacheTokens: 256 } });

  beforeEach(async () => {
    fs.writeFileSync(path.join(h.root, 'README.md'), '# Sample\nhello world\n');
    fs.mkdirSync(path.join(h.root, 'src'));
    fs.writeFileSync(path.join(h.root, 'src', 'a.ts'), 'export const a = 1;\n');
  });

  it('runs several tools in one turn and records every entry in order', async () => {
    h.fake.enqueue(call(['list_files', { pattern: '**/*' }], ['read_file', { path: 'README.md' }]), say('Two files; the README says hello.'));
    const result = await h.send('list the files and read README.md');
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(result.text, 'Two files; the README says hello.');
    const { entries } = await h.transcript(result.sessionId);
    assert.deepEqual(entries.map(e => e.kind), ['startup', 'prompt', 'response', 'tool_results', 'response']);
    const [listed, read] = toolResults(h.fake.requests[1].body);
    assert.match(resultText(listed), /README\.md/);
    assert.match(resultText(listed), /src\/a\.ts/);
    assert.match(resultText(read), /hello world/);
    assert.ok(h.fake.requests.every(r => r.outcome === 'completed'), 'the fake server accepted every request');
    const toolEvents = h.events.filter(e => e.event.type === 'tool_call').map(e => e.event.type === 'tool_call' && e.event.description);
    assert.deepEqual(toolEvents, ['List **/*', 'Read README.md']);
  });

  it('reads the previous request\'s prefix from the prompt cache', async () => {
    h.fake.enqueue(call(['read_file', { path: 'README.md' }]), say('done'));
    await h.send('read the readme');
    const [first, second] = h.fake.requests;
    assert.ok(first.usage!.cache_creation_input_tokens > 0, 'the first request writes the cache');
    assert.ok(second.usage!.cache_read_input_tokens >= first.usage!.cache_creation_input_tokens,
      `second request reads what the first wrote (${JSON.stringify(second.usage)})`);
    const usage = h.events.filter(e => e.event.type === 'usage');
    assert.equal(usage.length, 2, 'usage is reported per request');
  });

  it('edits a file after the user approves', async () => {
    await h.configure({ approvalMode: 'ask' });
    h.fake.enqueue(call(['edit_file', { path: 'src/a.ts', old_string: '= 1', new_string: '= 2' }]), say('Changed a to 2.'));
    const result = await h.send('set a to 2');
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(fs.readFileSync(path.join(h.root, 'src/a.ts'), 'utf8'), 'export const a = 2;\n');
    assert.equal(h.approvals.length, 1);
    assert.equal(h.approvals[0].toolName, 'edit_file');
    assert.equal(h.approvals[0].category, 'edit');
    const results = h.events.flatMap(e => (e.event.type === 'tool_result' ? [e.event] : []));
    assert.deepEqual(results[0].files, ['src/a.ts']);
  });

  it('returns a clear tool error to the model when the user denies a call, and changes nothing', async () => {
    await h.configure({ approvalMode: 'ask' });
    h.answerApproval = () => ({ approved: false, reason: 'not now' });
    h.fake.enqueue(call(['write_file', { path: 'new.txt', content: 'x' }]), say('Understood, I will not write it.'));
    const result = await h.send('write new.txt');
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(fs.existsSync(path.join(h.root, 'new.txt')), false);
    const [denied] = toolResults(h.fake.requests[1].body);
    assert.equal(denied.is_error, true);
    assert.match(resultText(denied), /denied this write_file call \(not now\)/);
  });

  it('does not ask in auto-edit mode for edits but does for bash', async () => {
    await h.configure({ approvalMode: 'auto-edit' });
    h.answerApproval = () => ({ approved: false });
    h.fake.enqueue(call(['write_file', { path: 'b.txt', content: 'b' }], ['bash', { command: 'echo hi' }]), say('ok'));
    await h.send('write and run');
    assert.equal(fs.readFileSync(path.join(h.root, 'b.txt'), 'utf8'), 'b');
    assert.deepEqual(h.approvals.map(a => a.toolName), ['bash']);
  });

  it('refuses paths outside the root and malformed tool input with tool errors, and keeps going', async () => {
    h.fake.enqueue(
      call(['read_file', { path: '../../../etc/passwd' }], ['read_file', { path: '/etc/hostname' }], ['edit_file', { path: 3 }], ['no_such_tool', {}]),
      say('I could not read those.'),
    );
    const result = await h.send('read secrets');
    assert.equal(result.stopReason, 'end_turn');
    const results = toolResults(h.fake.requests[1].body);
    assert.equal(results.length, 4);
    assert.ok(results.every(r => r.is_error === true));
    assert.match(resultText(results[0]), /outside/i);
    assert.match(resultText(results[1]), /outside/i);
    assert.match(resultText(results[2]), /path/);
    assert.match(resultText(results[3]), /Unknown tool "no_such_tool"/);
  });

  it('rewinds when the chat history no longer holds later turns (no ghost turns)', async () => {
    h.fake.enqueue(say('first answer'));
    const first = await h.send('first question');
    h.fake.enqueue(say('second answer'));
    await h.send('second question', { sessionId: first.sessionId, afterEntryId: first.lastEntryId });
    h.fake.enqueue(say('edited answer'));
    await h.send('edited second question', { sessionId: first.sessionId, afterEntryId: first.lastEntryId });
    const sent = JSON.stringify(h.fake.requests[2].body.messages);
    assert.ok(sent.includes('first question') && sent.includes('edited second question'));
    assert.ok(!sent.includes('second answer') && !sent.includes('"second question"'), 'the removed turn is not sent');
    const { entries } = await h.transcript(first.sessionId);
    assert.deepEqual(entries.map(e => e.kind), ['startup', 'prompt', 'response', 'prompt', 'response']);
  });
});
