// A new fork's model choice (src/common/modelChoice.ts): the chat's model first, the ids accepted, the notes.
import * as assert from 'node:assert/strict';
import { coldCacheText, forkModelOptions, modelIdProblem, sameModelText } from '../../src/common/modelChoice';
import { PanelModel } from '../../src/host/panel/panelModel';
import type { WireMessage } from '../../src/common/protocol/webview';

describe('a new fork\'s model choice', () => {
  it('lists the chat\'s model first, once, even when the endpoint does not list it', () => {
    const listed = [{ id: 'a', name: 'A' }, { id: 'b', name: 'B' }, { id: 'c', name: 'C' }];
    assert.deepEqual(forkModelOptions('b', listed).map(m => m.id), ['b', 'a', 'c']);
    assert.deepEqual(forkModelOptions('z', listed).map(m => m.id), ['z', 'a', 'b', 'c']);
    assert.deepEqual(forkModelOptions('z', []), [{ id: 'z', name: 'z' }]);
  });

  it('accepts the ids of every provider and refuses anything else', () => {
    for (const ok of ['claude-sonnet-4-5', 'claude-sonnet-4-5@20250929', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'arn:aws:bedrock:us-east-1:1:inference-profile/x']) {
      assert.equal(modelIdProblem(ok), undefined, ok);
    }
    for (const bad of ['', ' claude', 'a b', 'x\n', '-flag', 'x'.repeat(257), 3, null, ['a']]) assert.ok(modelIdProblem(bad), JSON.stringify(bad));
  });

  it('says plainly that another model starts cold', () => {
    assert.match(coldCacheText('claude-haiku-4-5', 'claude-sonnet-4-5'), /^Cold cache: claude-haiku-4-5 cannot read the prompt cache of claude-sonnet-4-5.*costs more/);
    assert.match(sameModelText('claude-sonnet-4-5'), /reads its prompt cache/);
  });

  it('the panel model sends a chat\'s MCP server states, ignoring servers the chat does not use', () => {
    const posted: WireMessage[] = [];
    const model = new PanelModel({ post: m => posted.push(m), renderMarkdown: t => t });
    model.setMcpServers([{ name: 'everything', state: 'running', tools: 11 }]);
    model.updateMcpServer({ name: 'other', state: 'failed', error: 'gone' });
    model.updateMcpServer({ name: 'everything', state: 'failed', error: 'the server stopped', tools: 11 });
    assert.deepEqual(posted.map(m => (m.kind === 'notification' ? [m.method, m.params] : m)), [
      ['mcpServers/state', { servers: [{ name: 'everything', state: 'running', tools: 11 }] }],
      ['mcpServers/state', { servers: [{ name: 'everything', state: 'failed', error: 'the server stopped', tools: 11 }] }],
    ]);
    assert.deepEqual(model.snapshot({ defaults: { forkTurns: 'all', isolation: 'shared' }, worktreeActions: true }).mcpServers, [{ name: 'everything', state: 'failed', error: 'the server stopped', tools: 11 }]);
    model.dispose();
  });
});
