// Worktree setup commands in a real VS Code workbench (code-server + chromium):
// with fork.worktree.setup in the user's
// settings, a fork started from the chat runs the setup command in its new worktree, and the command's
// output streams into the fork's row in the Forks panel (with the row saying setup is running); its
// first tool call waits until the command ends; the row shows the fork's isolation (worktree, sandbox, network).
// Screenshots: test-results/worktree-setup-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { sessionTranscript } from '../../src/common/protocol/runtime';
import { openForksView, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import { Gate, setUserSettings, worktreeResponder } from './worktreeSupport';

describe('Worktree setup output in the fork\'s row (code-server + chromium)', function () {
  this.timeout(240_000);
  const gate = new Gate();
  let setupGate = '';
  const run = uiRun('worktree-setup', {
    fake: { models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 40 },
    prepare: ({ stack }) => {
      setupGate = path.join(stack.runDir, 'setup-may-finish');
      // Setup keeps running until the test has looked at the row, then finishes.
      const command = `echo "installing dependencies into $FORK_AGENTS_WORKTREE"; echo "added 42 packages; dev server port $PORT"; ` +
        `until [ -f ${setupGate} ]; do sleep 0.1; done; echo "setup finished"`;
      setUserSettings(stack.codeServer.userDataDir, { 'fork.approvalMode': 'auto-edit', 'fork.worktree.setup': [command] });
    },
    release: () => {
      gate.release();
      if (setupGate) fs.writeFileSync(setupGate, '');
    },
  });

  it('streams the setup command\'s output into the fork\'s row, then its exit code; the fork works after it', async () => {
    const page = run.page;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork hello');
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
    await sendInChat(page, '@fork /fork write NOTES.md');
    await page.locator('.interactive-response', { hasText: 'Started fork' }).waitFor({ timeout: 60_000 });
    const observer = await run.observer();
    const [fork] = (await sendRequest(observer.endpoint, forkList, {})).forks;
    assert.equal(fork.isolation, 'worktree');

    const frame = await openForksView(page);
    await widenSideBar(page, 560);
    const row = frame.locator('.fork', { hasText: fork.name });
    await row.waitFor({ timeout: 30_000 });
    if ((await row.locator('.fork-toggle').getAttribute('aria-expanded')) !== 'true') await row.locator('.fork-toggle').click();
    const console_ = row.locator('.out-console');
    await console_.filter({ hasText: 'added 42 packages; dev server port' }).waitFor({ timeout: 30_000 });
    assert.match(await console_.innerText(), new RegExp(`installing dependencies into ${fork.worktree!.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await row.locator('.out-note', { hasText: 'Setup: echo "installing dependencies' }).waitFor({ timeout: 10_000 });
    await row.locator('.fork-workspace', { hasText: '(running)' }).waitFor({ timeout: 10_000 });
    // fork.sandbox.mode is auto by default: the setup command already runs in the sandbox, and the row says so.
    await row.locator('.fork-sandbox', { hasText: 'sandbox: on (bwrap), network: off' }).waitFor({ timeout: 10_000 });
    assert.match(await row.locator('.fork-meta').innerText(), /· worktree ·/);
    // The fork's first tool call (write NOTES.md) waits for setup: nothing is written yet.
    assert.equal(fs.existsSync(path.join(fork.worktree!.path, 'NOTES.md')), false);
    await screenshot(page, 'worktree-setup-running');

    fs.writeFileSync(setupGate, '');
    await row.locator('.out-note', { hasText: 'exited with code 0' }).waitFor({ timeout: 30_000 });
    await console_.filter({ hasText: 'setup finished' }).waitFor({ timeout: 10_000 });
    gate.release();
    const done = await sendRequest(observer.endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed', done.error);
    assert.ok(fs.existsSync(path.join(fork.worktree!.path, 'NOTES.md')));
    const transcript = await sendRequest(observer.endpoint, sessionTranscript, { sessionId: fork.id });
    assert.ok(transcript.entries.some(e => e.kind === 'reminder' && JSON.stringify(e.message).includes('exited with code 0')));
    await row.locator('.fork-workspace', { hasText: 'exit code 0' }).waitFor({ timeout: 10_000 });
    if (!(await row.locator('.output-details').getAttribute('open'))) await row.locator('.output-details summary').click();
    await screenshot(page, 'worktree-setup-done');
  });
});
