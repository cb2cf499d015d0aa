// The walkthrough from the packaged extension in a real VS Code (code-server + chromium):
// the packaged .vsix, installed with
// `code-server --install-extension` as a user installs it, runs the walkthrough's first step (the key goes
// into SecretStorage through the step's button: the environment has none), then the README's demo
// walkthrough against the demo model: chat with tools, a /fork that works in its own worktree and creates a
// file, its report beginning with "Scope:", Review listing the file and Apply bringing it into the main tree;
// the walkthrough's fork step is then ticked by that /fork.
// Screenshots: test-results/walkthrough-*.png.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO_API_KEY } from '../../scripts/e2e/stack';
import { repoRoot } from '../../scripts/e2e/tools';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { uiRun } from './uiRun';
import { lastResponse, openChat, runCommand, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import { runCommandAndPick } from './worktreeSupport';

/** `vsce package` of the current build, into a temp folder: what `npm run package` ships. */
function packageVsix(): string {
  const root = repoRoot();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-vsix-')), 'fork-agents.vsix');
  execFileSync(process.execPath, [path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '-o', out], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out;
}

describe('Walkthrough from the packaged .vsix (code-server + chromium)', function () {
  this.timeout(240_000);
  // The demo model, and no key in the environment: the walkthrough's first step provides it.
  const run = uiRun('walkthrough', () => ({
    stack: { extension: { vsix: packageVsix() }, apiKey: '', streamDelayMs: 10, userSettings: { 'fork.approvalMode': 'auto-edit' } },
  }));

  it('installs with --install-extension, takes the key from the first step and does the demo walkthrough', async () => {
    const stack = run.stack;
    const installed = fs.readdirSync(stack.codeServer.extensionsDir).filter(name => name.startsWith('fork-agents.fork-agents-'));
    assert.equal(installed.length, 1, `installed: ${fs.readdirSync(stack.codeServer.extensionsDir).join(', ')}`);
    const shipped = path.join(stack.codeServer.extensionsDir, installed[0]);
    assert.ok(fs.existsSync(path.join(shipped, 'media', 'icon.png')));
    assert.equal(fs.existsSync(path.join(shipped, 'dist', 'fake-anthropic.js')), false, 'the fake server does not ship');
    const page = run.page;

    // 1. The walkthrough's first step: its button runs Fork: Set Anthropic API Key.
    // The command opens a second pick, the walkthroughs, in the same quick input: the palette need not close
    // in between (waiting for that raced), so the wait is for the walkthrough's row.
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Fork Agents' });
    await runCommand(page, 'Welcome: Open Walkthrough...', { shows: pick.first(), showsTimeoutMs: 30_000 });
    await pick.first().click({ timeout: 30_000 });
    const step = page.locator('.getting-started-step', { hasText: 'Set an Anthropic API key' });
    await step.first().waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page, 'walkthrough-1-open');
    await page.getByRole('button', { name: 'Set Anthropic API Key' }).first().click({ timeout: 15_000 });
    const keyInput = page.locator('.quick-input-widget input[type="password"]');
    await keyInput.waitFor({ state: 'visible', timeout: 15_000 });
    await keyInput.fill(DEMO_API_KEY);
    await keyInput.press('Enter');
    await page.locator('.notification-toast', { hasText: 'Anthropic API key saved.' }).waitFor({ timeout: 30_000 });
    await page.locator('.getting-started-step[data-step-id$="key"][aria-checked="true"]').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'walkthrough-1-key-saved');

    // 2. Chat and tools, with the key from SecretStorage (the demo server refuses any other).
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork list the files and read README.md');
    await lastResponse(page).filter({ hasText: 'Here is what I found' }).waitFor({ timeout: 90_000 });
    await lastResponse(page).filter({ hasText: 'README.md' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'walkthrough-2-chat');

    // 3. A fork in its own worktree that creates a file.
    await sendInChat(page, '@fork /fork create NOTES.md with notes from a fork');
    await page.locator('.interactive-response', { hasText: 'Started fork' }).waitFor({ timeout: 60_000 });
    const observer = await run.observer(path.join(shipped, 'dist', 'runtime.js'));
    const { forks } = await sendRequest(observer.endpoint, forkList, {});
    assert.equal(forks.length, 1);
    const done = await sendRequest(observer.endpoint, forkWait, { forkId: forks[0].id });
    assert.equal(done.state, 'completed', done.error);
    assert.match(done.report ?? '', /^Scope: create NOTES\.md with notes from a fork\./);
    assert.match(done.report ?? '', /^Files changed: NOTES\.md$/m);
    assert.equal(fs.existsSync(path.join(stack.workspace.folder, 'NOTES.md')), false, 'the main tree is untouched until Apply');
    await screenshot(page, 'walkthrough-3-fork-done');

    // 4. Review lists the file; Apply brings it into the main tree.
    const toast = page.locator('.notification-toast', { hasText: `Fork "${done.name}" completed.` });
    await toast.getByRole('button', { name: 'Review' }).click({ timeout: 60_000 });
    await page.locator('.editor-group-container .tab', { hasText: `Fork changes: ${done.name}` }).waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container', { hasText: 'NOTES.md' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container', { hasText: 'notes from a fork' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'walkthrough-4-review');
    await runCommandAndPick(page, 'Fork: Apply Fork Changes', 'Which fork?', done.name);
    await page.locator('.notification-toast', { hasText: 'Applied 1 file' }).first().waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(stack.workspace.folder, 'NOTES.md'), 'utf8'), 'notes from a fork\n');
    await screenshot(page, 'walkthrough-5-applied');

    // 5. The walkthrough's fork step is ticked by the /fork above, not only by its own New Directive button.
    await runCommand(page, 'Welcome: Open Walkthrough...', { shows: pick.first(), showsTimeoutMs: 30_000 });
    await pick.first().click({ timeout: 30_000 });
    await page.locator('.getting-started-step[data-step-id$="key"][aria-checked="true"]').first().waitFor({ timeout: 30_000 });
    await page.locator('.getting-started-step[data-step-id$="fork"][aria-checked="true"]').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'walkthrough-6-fork-step-ticked');
  });
});
