import { strict as assert } from 'node:assert';
import { buildChatParams, toAnthropicMessages } from '../../src/host/lm/toAnthropic';

describe('host LM: VS Code messages → Messages API', () => {
  const text = (value: string) => ({ value });
  const call = (callId: string, name: string, input: object) => ({ callId, name, input });
  const result = (callId: string, value: string) => ({ callId, content: [text(value)] });

  it('converts roles, tool calls and results; system text goes to `system`', () => {
    const out = toAnthropicMessages([
      { role: 3, content: [text('Be brief.')] },
      { role: 1, content: [text('List files')] },
      { role: 2, content: [text('Looking.'), call('c1', 'list', { dir: '.' })] },
      { role: 1, content: [text('(also this)'), result('c1', 'a.txt\nb.txt')] },
      { role: 2, content: [text('Two files.')] },
    ]);
    assert.equal(out.system, 'Be brief.');
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'List files' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'c1', name: 'list', input: { dir: '.' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt\nb.txt' }, { type: 'text', text: '(also this)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
    ]);
  });

  it('merges same-role neighbours, drops empty and unknown parts, answers unanswered tool calls', () => {
    const out = toAnthropicMessages([
      { role: 1, content: [text('a')] },
      { role: 1, content: [text('  '), { mimeType: 'image/png', data: new Uint8Array(1) }, text('b')] },
      { role: 2, content: [{ value: 'private reasoning', id: undefined, metadata: undefined }] },
      { role: 2, content: [call('c9', 'bash', { command: 'ls' })] },
    ]);
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c9', name: 'bash', input: { command: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c9', content: 'No result: the call did not run.', is_error: true }] },
    ]);
    assert.equal(out.system, undefined);
  });

  it('builds the model/chat request with tools; Required tool mode becomes toolChoice any', () => {
    const body = buildChatParams([{ role: 1, content: [text('hi')] }], {
      model: 'claude-x', maxTokens: 100, toolRequired: true,
      tools: [{ name: 'a', description: 'A', inputSchema: { type: 'object', properties: { p: { type: 'string' } } } }, { name: 'b', description: 'B' }],
    });
    assert.deepEqual(body, {
      model: 'claude-x', maxTokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [
        { name: 'a', description: 'A', input_schema: { type: 'object', properties: { p: { type: 'string' } } } },
        { name: 'b', description: 'B', input_schema: { type: 'object', properties: {} } },
      ],
      toolChoice: 'any',
    });
    assert.equal('tools' in buildChatParams([], { model: 'm', maxTokens: 1 }), false);
  });
});
