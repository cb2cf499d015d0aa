// The extension activates in a real extension host and contributes what its manifest promises.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sessionList } from '../../src/common/protocol/runtime';
import { activateExtension, EXTENSION_ID, waitFor } from './support';
import type { ForkAgentsApi } from './support';

describe('activation', () => {
  let api: ForkAgentsApi;

  before(async () => {
    api = await activateExtension();
  });

  it('activates and exposes the runtime API', async () => {
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    assert.equal(typeof api.runtime.request, 'function');
    const expectedStore = process.env.FORK_AGENTS_STORE;
    assert.ok(expectedStore, 'the harness sets FORK_AGENTS_STORE');
    assert.equal(path.resolve(api.storeDir), path.resolve(expectedStore));
    const listed = await api.runtime.request(sessionList, {});
    assert.ok(Array.isArray(listed.sessions), 'session/list answers with a sessions array');
  });

  it('registers every command of its manifest', async () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as {
      contributes: { commands: { command: string }[] };
    };
    const contributed = manifest.contributes.commands.map(c => c.command);
    assert.ok(contributed.includes('forkAgents.setApiKey'));
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter(command => !registered.has(command));
    assert.deepEqual(missing, [], `commands contributed but not registered: ${missing.join(', ')}`);
  });

  it('offers its tool-capable model to the Chat view', async () => {
    const models = await waitFor(
      'a fork-agents model',
      async () => {
        const found = await vscode.lm.selectChatModels({ vendor: 'fork-agents' });
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(models[0].vendor, 'fork-agents');
    assert.ok(models[0].maxInputTokens > 0, 'the model states its context size');
  });
});
