// Issue 13 in a real VS Code workbench (code-server + chromium): with fork.worktree.setup in the user's
// settings, a fork started from the chat runs the setup command in its new worktree, and the command's
// output streams into the fork's row in the Forks panel (with the row saying setup is running); its
// first tool call waits until the command ends; the row shows the fork's isolation (worktree, sandbox, network).
// Screenshots: test-results/worktree-setup-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkbench } from '../../scripts/e2e/browser';
import type { Workbench } from '../../scripts/e2e/browser';
import { DEMO_API_KEY, startStack } from '../../scripts/e2e/stack';
import type { Stack } from '../../scripts/e2e/stack';
import { requireE2eTools } from '../../scripts/e2e/tools';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { sessionTranscript } from '../../src/common/protocol/runtime';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { openForksView, widenSideBar } from './forksViewUi';
import { forkFromHere, lastResponse, openChat, RESULTS_DIR, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import { Gate, setUserSettings, worktreeResponder } from './worktreeSupport';

describe('Worktree setup output in the fork\'s row (code-server + chromium)', function () {
  this.timeout(240_000);
  let fake: FakeAnthropic | undefined;
  let stack: Stack | undefined;
  let workbench: Workbench | undefined;
  let observer: RuntimeClient | undefined;
  let failed = false;
  const gate = new Gate();
  let setupGate = '';

  before(async function () {
    this.timeout(180_000);
    const tools = requireE2eTools();
    fake = await startFakeAnthropic({ apiKey: DEMO_API_KEY, models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 40 });
    stack = await startStack({ tools, extension: 'install', fake: false, label: 'worktree-setup', env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: DEMO_API_KEY } });
    setupGate = path.join(stack.runDir, 'setup-may-finish');
    // Setup keeps running until the test has looked at the row, then finishes.
    const command = `echo "installing dependencies into $FORK_AGENTS_WORKTREE"; echo "added 42 packages; dev server port $PORT"; ` +
      `until [ -f ${setupGate} ]; do sleep 0.1; done; echo "setup finished"`;
    setUserSettings(stack.codeServer.userDataDir, { 'fork.approvalMode': 'auto-edit', 'fork.worktree.setup': [command] });
    workbench = await openWorkbench({ chromium: tools.chromium, runDir: stack.runDir, url: stack.codeServer.workbenchUrl(stack.workspace.workspaceFile) });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    failed = true;
    console.log(`      screenshot of the failure: ${await screenshot(workbench.page, 'worktree-setup-failed')}`);
  });

  after(async function () {
    this.timeout(30_000);
    gate.release();
    if (setupGate) fs.writeFileSync(setupGate, '');
    if (failed && stack) console.log(`      logs: ${stack.collectLogs(path.join(RESULTS_DIR, 'logs', 'worktree-setup')).length} files`);
    await observer?.close().catch(() => undefined);
    await workbench?.close();
    await stack?.stop();
    await fake?.close();
  });

  it('streams the setup command\'s output into the fork\'s row, then its exit code; the fork works after it', async () => {
    const page = workbench!.page;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork hello');
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
    await sendInChat(page, '@fork /fork write NOTES.md');
    await page.locator('.interactive-response', { hasText: 'Started fork' }).waitFor({ timeout: 60_000 });
    observer = await connectRpc(await connectOrStart({ storeDir: stack!.storeDir, runtimeScript: path.join(stack!.root, 'dist', 'runtime.js') }), 'worktree-setup-e2e');
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
