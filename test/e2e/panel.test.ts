// UI checks of the Forks panel in a real VS Code workbench (code-server + chromium), clicking
// through as a user would: a fork that streams and reports, the turn picker, right-click › Fork from here,
// `Fork: New Directive`, an approval answered in the panel, hostile output shown as text, `Fork: Stop All`,
// and the view rebuilt after being hidden. Screenshots go to test-results/panel-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { openWorkbench } from '../../scripts/e2e/browser';
import type { Workbench } from '../../scripts/e2e/browser';
import { DEMO_API_KEY, startStack } from '../../scripts/e2e/stack';
import type { Stack } from '../../scripts/e2e/stack';
import { requireE2eTools } from '../../scripts/e2e/tools';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList } from '../../src/common/protocol/forks';
import { sessionTranscript } from '../../src/common/protocol/runtime';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { panelResponder } from '../fakes/panelScript';
import { forkIds, openForksView, paletteCommand, rowOf, widenSideBar } from './forksViewUi';
import { forkFromHere, lastResponse, openChat, RESULTS_DIR, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';

describe('Forks panel UI (code-server + chromium)', function () {
  this.timeout(120_000);
  let fake: FakeAnthropic | undefined;
  let stack: Stack | undefined;
  let workbench: Workbench | undefined;
  let runtime: RuntimeClient | undefined;
  let panel: Frame;
  let failed = false;
  let conversationReady = false;

  before(async function () {
    this.timeout(180_000);
    const tools = requireE2eTools();
    // Our own fake (in this process): the demo model for chat, scripted behaviour for forks. A pause
    // between SSE events keeps streaming on screen long enough to see.
    fake = await startFakeAnthropic({ apiKey: DEMO_API_KEY, models: 'none', responder: panelResponder(), streamDelayMs: 70 });
    stack = await startStack({
      tools, extension: 'install', fake: false, label: 'panel',
      env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: DEMO_API_KEY },
      userSettings: { 'fork.approvalMode': 'ask' },
    });
    workbench = await openWorkbench({ chromium: tools.chromium, runDir: stack.runDir, url: stack.codeServer.workbenchUrl(stack.workspace.workspaceFile) });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    failed = true;
    const name = `panel-failed-${(this.currentTest.title || 'test').replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 60)}`;
    console.log(`      screenshot of the failure: ${await screenshot(workbench.page, name)}`);
  });

  after(async function () {
    this.timeout(30_000);
    if (failed && stack) console.log(`      logs: ${path.join(RESULTS_DIR, 'logs', 'panel')} (${stack.collectLogs(path.join(RESULTS_DIR, 'logs', 'panel')).length} files)`);
    await runtime?.close().catch(() => undefined);
    await workbench?.close();
    await stack?.stop();
    await fake?.close();
  });

  /** The runtime the editor uses, to check what a fork inherited. */
  async function runtimeClient(): Promise<RuntimeClient> {
    runtime ??= await connectRpc(await connectOrStart({ storeDir: stack!.storeDir, runtimeScript: path.join(stack!.root, 'dist', 'runtime.js') }), 'panel-e2e');
    return runtime;
  }

  async function chat(page: Page, prompt: string, expected: string): Promise<void> {
    const before = await page.locator('.interactive-response').count();
    await sendInChat(page, prompt);
    await page.locator('.interactive-response').nth(before).waitFor({ timeout: 30_000 });
    const response = lastResponse(page);
    await response.filter({ hasText: expected }).waitFor({ timeout: 60_000 });
    await forkFromHere(response).waitFor({ timeout: 60_000 });
  }

  async function startFromForm(directive: string, turns: 'all' | string, isolation: 'shared' | 'worktree' = 'shared'): Promise<Locator> {
    const before = await panel.locator('.fork').count();
    await panel.locator('#directive').fill(directive);
    if (turns === 'all') await panel.locator('#turns-all').check();
    else await panel.locator('#turns-n').fill(turns);
    await panel.locator('#isolation').selectOption(isolation);
    await panel.getByRole('button', { name: 'Start fork' }).click();
    await panel.locator('.fork').nth(before).waitFor({ timeout: 30_000 });
    return rowOf(panel, directive);
  }

  it('shows the current chat in the Forks view, with its real turns', async () => {
    const page = workbench!.page;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await chat(page, '@fork list the files', 'Here is what I found');
    await chat(page, '@fork read README.md', 'README.md');
    panel = await openForksView(page);
    await widenSideBar(page, 440);
    await panel.locator('.message.assistant').nth(1).waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('.message.user').count(), 2);
    assert.equal((await panel.locator('#turns-hint').innerText()).trim(), 'This conversation has 2 real turns.');
    const context = JSON.parse((await panel.locator('.message.assistant').first().getAttribute('data-vscode-context')) ?? '{}') as Record<string, unknown>;
    assert.equal(context.webviewSection, 'message');
    assert.equal(context.preventDefaultContextMenuItems, true);
    assert.match(String(context.messageId), /\S/);
    await screenshot(page, 'panel-conversation');
    conversationReady = true;
  });

  it('the turn picker rejects 0 and 1.5 with a message and starts a fork with 2', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    await panel.locator('#directive').fill('summarise the project');
    await panel.locator('#isolation').selectOption('shared');
    for (const bad of ['0', '1.5']) {
      await panel.locator('#turns-n').fill(bad);
      await panel.locator('#turns-error', { hasText: `Invalid turn count "${bad}"` }).waitFor({ timeout: 5_000 });
      assert.equal(await panel.locator('#turns-n').getAttribute('aria-invalid'), 'true');
      await screenshot(page, `panel-picker-${bad}`);
      await panel.getByRole('button', { name: 'Start fork' }).click();
      assert.equal(await panel.locator('.fork').count(), 0, `no fork starts with ${bad}`);
    }
    await panel.locator('#turns-n').fill('2');
    assert.equal((await panel.locator('#turns-error').innerText()).trim(), '');
    await panel.getByRole('button', { name: 'Start fork' }).click();
    const row = rowOf(panel, 'summarise the project');
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.locator('.fork-meta').innerText(), /you · last 2 turns · shared/);
  });

  it('lists the running fork as it streams, then its report', async () => {
    const page = workbench!.page;
    const row = rowOf(panel, 'summarise the project');
    // Started from the form, the row opens by itself; its output streams in while it runs.
    await row.locator('.fork-body:not([hidden]) .out-tool').first().waitFor({ timeout: 30_000 });
    await panel.locator('.fork[data-state="running"] .out-text', { hasText: 'Scope:' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'panel-streaming');
    await row.locator('.report', { hasText: 'Key files' }).waitFor({ timeout: 60_000 });
    assert.equal(await row.getAttribute('data-state'), 'completed');
    await screenshot(page, 'panel-report');
    const report = row.locator('.report');
    assert.equal(await report.locator('li').count(), 3, 'the report is rendered markdown (a list)');
    assert.equal(await report.locator('strong', { hasText: 'greet(name)' }).count(), 1);
    assert.match(await row.locator('.fork-usage').innerText(), /^2 model turns · [\d.]+k? in \/ \d+ out · first request \d+% cached · context \d+%$/);
  });

  it('right-click › Fork from here on an earlier message starts a fork whose transcript ends there', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const message = panel.locator('.message.assistant').first();
    const { messageId } = JSON.parse((await message.getAttribute('data-vscode-context')) ?? '{}') as { messageId: string };
    await message.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-label', { hasText: 'Fork from here' });
    await item.waitFor({ timeout: 10_000 });
    await screenshot(page, 'panel-context-menu');
    await item.click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('explain the file list');
    await page.keyboard.press('Enter');
    const row = rowOf(panel, 'explain the file list');
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.locator('.fork-meta').innerText(), /^from message “.+” · last 2 turns · shared/);
    await screenshot(page, 'panel-forked-from-message');
    const forkId = (await row.getAttribute('data-fork-id'))!;
    const client = await runtimeClient();
    const summary = (await sendRequest(client.endpoint, forkList, {})).forks.find(f => f.id === forkId);
    assert.equal(summary?.parentEntryId, messageId);
    assert.equal(summary?.origin, 'message');
    const { entries } = await sendRequest(client.endpoint, sessionTranscript, { sessionId: forkId });
    const directiveAt = entries.findIndex(e => e.message.content.some(b => b.type === 'text' && b.text.includes('<fork-boilerplate>')));
    assert.ok(directiveAt > 0, 'the fork has its directive');
    assert.equal(entries[directiveAt - 1].id, messageId, 'the inherited history ends at the right-clicked message');
    await row.locator('.report', { hasText: 'Scope' }).waitFor({ timeout: 60_000 });
    // Its transcript opens as a read-only document.
    await row.getByRole('button', { name: 'Open the transcript' }).click();
    await page.locator('.tab', { hasText: 'explain the file list (transcript).md' }).waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: `Forked from session ${summary?.parentSessionId} at entry ${messageId}` }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'panel-transcript');
  });

  it('Fork: New Directive from the palette starts a fork', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const input = await paletteCommand(page, 'Fork: New Directive', 'Fork: New Directive (1/5)');
    await input.fill('review the math helper');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-title', { hasText: '(2/5)' }).waitFor({ timeout: 10_000 });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Custom…' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'panel-palette-turns');
    await input.fill('1');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'the last real turn' }).first().click();
    await page.locator('.quick-input-title', { hasText: '(3/5)' }).waitFor({ timeout: 10_000 });
    await input.fill('shared');
    await page.keyboard.press('Enter');
    // The chat's model comes first and is the one Enter takes: the fork shares the chat's prompt cache.
    await page.locator('.quick-input-title', { hasText: '(4/5)' }).waitFor({ timeout: 10_000 });
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: "this chat's model" }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'panel-palette-model');
    await page.keyboard.press('Enter');
    // One attempt is preselected: a plain fork.
    await page.locator('.quick-input-title', { hasText: '(5/5)' }).waitFor({ timeout: 10_000 });
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: '1 attempt' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const row = rowOf(panel, 'review the math helper');
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.locator('.fork-meta').innerText(), /^you · last turn · shared/);
    await row.locator('.report', { hasText: 'Scope' }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'panel-palette-fork');
  });

  it('an approval shown in the panel is approved there', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const row = await startFromForm('write notes.txt with a summary', 'all');
    const approval = row.locator('.approval');
    await approval.waitFor({ timeout: 30_000 });
    // The row's state and its approval arrive as separate updates (rows render at most 20 times a second).
    await panel.locator('.fork[data-state="waiting-for-approval"]', { hasText: 'write notes.txt with a summary' }).waitFor({ timeout: 10_000 });
    assert.match(await approval.innerText(), /Write notes\.txt/);
    await screenshot(page, 'panel-approval');
    await approval.getByRole('button', { name: /^Approve/ }).click();
    await row.locator('.report', { hasText: 'wrote notes.txt' }).waitFor({ timeout: 60_000 });
    assert.equal(await row.locator('.approval').count(), 0);
    assert.equal(fs.readFileSync(path.join(stack!.workspace.folder, 'notes.txt'), 'utf8'), 'Notes written by a fork.\n');
    await screenshot(page, 'panel-approved');
  });

  it('shows a report with <img onerror> and <script> as text', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const row = await startFromForm('xss check of the report', 'all');
    const report = row.locator('.report');
    await report.filter({ hasText: 'stay text' }).waitFor({ timeout: 60_000 });
    const text = await report.innerText();
    assert.ok(text.includes('<img src=x onerror="window.__forkPwned=1">'), text);
    assert.ok(text.includes('<script>window.__forkPwned=2</script>'), text);
    assert.ok(text.includes('[this link](javascript:window.__forkPwned=3)'), text);
    assert.equal(await report.locator('img, script, [href], [onerror]').count(), 0);
    assert.equal(await panel.evaluate('window.__forkPwned'), undefined);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'panel-xss');
  });

  it('Fork: Stop All stops a running fork', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const row = await startFromForm('slow survey of the files', 'all');
    await row.locator('.out-tool.ok').first().waitFor({ timeout: 30_000 });
    assert.equal(await row.getAttribute('data-state'), 'running');
    await paletteCommand(page, 'Fork: Stop All');
    await panel.locator('.fork[data-state="cancelled"]', { hasText: 'slow survey of the files' }).waitFor({ timeout: 30_000 });
    await row.locator('.out-note', { hasText: 'Stopped.' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'panel-stopped');
  });

  it('rebuilds every row after the view was hidden and shown again', async () => {
    const page = workbench!.page;
    const ids = await forkIds(panel);
    assert.ok(ids.length >= 6, `${ids.length} forks listed`);
    await paletteCommand(page, 'View: Show Explorer');
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 15_000 });
    panel = await openForksView(page);
    await panel.locator('.fork').nth(ids.length - 1).waitFor({ timeout: 15_000 });
    const again = await forkIds(panel);
    assert.deepEqual(again, ids);
    await panel.locator('.report-section:not([hidden]) .report').first().waitFor({ timeout: 5_000 });
    await screenshot(page, 'panel-restored');
  });

  it('offers Review, Apply, Keep and Discard for a finished worktree fork', async () => {
    assert.ok(conversationReady, 'needs the conversation of the first check');
    const page = workbench!.page;
    const row = await startFromForm('tour of the worktree', 'all', 'worktree');
    await row.locator('.report', { hasText: 'Scope' }).waitFor({ timeout: 60_000 });
    assert.match(await row.locator('.fork-meta').innerText(), /· worktree ·/);
    const labels = (await row.locator('.fork-actions .button').allInnerTexts()).map(t => t.trim());
    assert.deepEqual(labels, ['Transcript', 'Folder', 'Review', 'Apply', 'Keep', 'Discard']);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'panel-worktree');
  });
});
