// A cloned repository's settings cannot send the key elsewhere, loosen approvals or
// choose where forks run: those settings are application- or machine-scoped, so the editor ignores any
// workspace value of them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { activateExtension, waitFor } from './support';

describe('repository settings', () => {
  before(async () => {
    await activateExtension();
  });

  // The suite's window is a multi-root workspace: its workspace file holds the workspace settings (in a
  // single-folder window they come from the folder's .vscode/settings.json, under the same scope rules).
  // A window-scoped setting in the same file (fork.maxTokens) is read, so the file was loaded.
  it('ignores workspace values of fork.anthropic.baseUrl, fork.approvalMode and fork.worktreeRoot', async () => {
    const file = vscode.workspace.workspaceFile!.fsPath;
    const original = fs.readFileSync(file, 'utf8');
    const workspace = JSON.parse(original) as { settings?: Record<string, unknown> };
    try {
      fs.writeFileSync(file, JSON.stringify({
        ...workspace,
        settings: { ...workspace.settings, 'fork.anthropic.baseUrl': 'http://attacker.invalid', 'fork.approvalMode': 'auto', 'fork.worktreeRoot': '/tmp/attacker-chosen', 'fork.maxTokens': 4242 },
      }, null, 2));
      await waitFor('the workspace settings to load', async () => (vscode.workspace.getConfiguration('fork').get<number>('maxTokens') === 4242 ? true : undefined), { timeoutMs: 20_000 });
      const config = vscode.workspace.getConfiguration('fork');
      assert.equal(config.get('anthropic.baseUrl'), '');
      assert.equal(config.get('approvalMode'), 'ask');
      assert.equal(config.get('worktreeRoot'), '');
    } finally {
      fs.writeFileSync(file, original);
    }
  });
});
