// Code checkpoints in a real VS Code workbench (code-server + chromium): a chat writes notes.txt
// "version-one", then "version-two"; right-click › Fork from here on turn one's answer in the Forks panel
// starts a worktree fork whose workspace folder, opened in the Explorer, shows the old file; right-click ›
// Rewind to here puts the old file back in the main folder, and the notification's Undo takes it back;
// each turn's answer lists the files the turn changed, and its "Diff since here" opens the multi-diff
// editor from that turn's start to the files now. Screenshots: test-results/checkpoints-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
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
import { sessionList, sessionTranscript } from '../../src/common/protocol/runtime';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { openForksView, rowOf, widenSideBar } from './forksViewUi';
import { forkFromHere, lastResponse, openChat, RESULTS_DIR, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import { addWorktreeContributions, explorerRoot, Gate, setUserSettings, showExplorer, worktreeResponder } from './worktreeSupport';

describe('Code checkpoints: Fork from here at an earlier message (code-server + chromium)', function () {
  this.timeout(180_000);
  const gate = new Gate();
  let fake: FakeAnthropic | undefined;
  let stack: Stack | undefined;
  let workbench: Workbench | undefined;
  let observer: RuntimeClient | undefined;
  let failed = false;

  before(async function () {
    this.timeout(180_000);
    const tools = requireE2eTools();
    fake = await startFakeAnthropic({ apiKey: DEMO_API_KEY, models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 20 });
    stack = await startStack({ tools, extension: 'install', fake: false, label: 'checkpoints', env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: DEMO_API_KEY } });
    addWorktreeContributions(stack.codeServer.extensionsDir);
    // "always": the fork below only looks at its files, and this check opens them from the Explorer
    // (by default a fork's folder joins the workspace only once it writes).
    setUserSettings(stack.codeServer.userDataDir, { 'fork.approvalMode': 'auto-edit', 'fork.worktree.addToWorkspace': 'always' });
    workbench = await openWorkbench({ chromium: tools.chromium, runDir: stack.runDir, url: stack.codeServer.workbenchUrl(stack.workspace.workspaceFile) });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    failed = true;
    console.log(`      screenshot of the failure: ${await screenshot(workbench.page, 'checkpoints-failed')}`);
  });

  after(async function () {
    this.timeout(30_000);
    gate.release();
    if (failed && stack) console.log(`      logs: ${stack.collectLogs(path.join(RESULTS_DIR, 'logs', 'checkpoints')).length} files in test-results/logs/checkpoints`);
    await observer?.close().catch(() => undefined);
    await workbench?.close();
    await stack?.stop();
    await fake?.close();
  });

  async function chat(page: Page, prompt: string): Promise<void> {
    const before = await page.locator('.interactive-response').count();
    await sendInChat(page, prompt);
    await page.locator('.interactive-response').nth(before).waitFor({ timeout: 30_000 });
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
  }

  it('right-click › Fork from here on turn one: the fork\'s workspace folder has notes.txt "version-one"', async () => {
    const page = workbench!.page;
    const repo = stack!.workspace.folder;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await chat(page, '@fork create notes.txt with version-one');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-one\n');
    await chat(page, '@fork create notes.txt with version-two');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n');

    // Turn one's answer: the last entry before the second prompt.
    observer = await connectRpc(await connectOrStart({ storeDir: stack!.storeDir, runtimeScript: path.join(stack!.root, 'dist', 'runtime.js') }), 'checkpoints-e2e');
    const [session] = (await sendRequest(observer.endpoint, sessionList, {})).sessions;
    const { entries } = await sendRequest(observer.endpoint, sessionTranscript, { sessionId: session.id });
    const secondPrompt = entries.findIndex(e => e.kind === 'prompt' && JSON.stringify(e.message).includes('version-two'));
    const turnOneAnswer = entries[secondPrompt - 1];
    assert.equal(turnOneAnswer.kind, 'response');

    const panel = await openForksView(page);
    await widenSideBar(page, 440);
    const message = panel.locator(`.message.assistant[data-vscode-context*="${turnOneAnswer.id}"]`);
    await message.waitFor({ timeout: 30_000 });
    await message.scrollIntoViewIfNeeded();
    await message.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-label', { hasText: 'Fork from here' });
    await item.waitFor({ timeout: 10_000 });
    await screenshot(page, 'checkpoints-context-menu');
    await item.click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('look at the notes');
    await page.keyboard.press('Enter');
    await rowOf(panel, 'look at the notes').waitFor({ timeout: 30_000 });

    const [fork] = (await sendRequest(observer.endpoint, forkList, {})).forks;
    assert.equal(fork.parentEntryId, turnOneAnswer.id);
    assert.equal(fork.isolation, 'worktree');
    assert.equal(fs.readFileSync(path.join(fork.worktree!.path, 'notes.txt'), 'utf8'), 'version-one\n', 'the worktree starts at turn one\'s code');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n', 'the main tree keeps today\'s');

    // The fork's workspace folder in the Explorer: open its notes.txt.
    await showExplorer(page);
    const root = explorerRoot(page, `Fork: ${fork.name}`);
    await root.waitFor({ timeout: 30_000 });
    const rows = page.locator('.explorer-folders-view .monaco-list-row');
    if ((await root.getAttribute('aria-expanded')) !== 'true') await root.click();
    const rootIndex = Number(await root.getAttribute('data-index'));
    // The notes.txt row right under the fork's root (the main folder has one too).
    const notes = rows.filter({ hasText: 'notes.txt' }).filter({ has: page.locator('.label-name') });
    await notes.first().waitFor({ timeout: 15_000 });
    let opened = false;
    for (let i = 0; i < (await notes.count()); i++) {
      if (Number(await notes.nth(i).getAttribute('data-index')) > rootIndex) {
        await notes.nth(i).click();
        opened = true;
        break;
      }
    }
    assert.ok(opened, 'notes.txt shows under the fork\'s folder');
    const editor = page.locator('.editor-instance .view-lines');
    await editor.filter({ hasText: 'version-one' }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'checkpoints-fork-folder');

    gate.release();
    assert.equal((await sendRequest(observer.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
  });

  it('right-click › Rewind to here on turn one puts notes.txt back in the main folder, and Undo brings version-two back', async () => {
    const page = workbench!.page;
    const repo = stack!.workspace.folder;
    const [session] = (await sendRequest(observer!.endpoint, sessionList, {})).sessions;
    const { entries } = await sendRequest(observer!.endpoint, sessionTranscript, { sessionId: session.id });
    const turnOneAnswer = entries[entries.findIndex(e => e.kind === 'prompt' && JSON.stringify(e.message).includes('version-two')) - 1];
    const panel = await openForksView(page);
    const message = panel.locator(`.message.assistant[data-vscode-context*="${turnOneAnswer.id}"]`);
    await message.waitFor({ timeout: 30_000 });
    await message.scrollIntoViewIfNeeded();
    await message.click({ button: 'right' });
    const rewindItem = page.locator('.monaco-menu .action-label', { hasText: 'Rewind to here' });
    await rewindItem.click({ timeout: 10_000 });
    // A click that lands while the menu is still settling leaves it open with the item focused: Enter
    // chooses it then (a click that worked closed the menu, so nothing runs twice).
    if (await rewindItem.isVisible()) await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    await screenshot(page, 'checkpoints-rewind-dialog');
    await dialog.getByRole('button', { name: 'Files and Conversation' }).click();
    const toast = page.locator('.notification-toast', { hasText: 'Rewound: 1 file(s) put back.' });
    await toast.waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-one\n');
    const after = await sendRequest(observer!.endpoint, sessionTranscript, { sessionId: session.id });
    assert.equal(after.entries.at(-1)!.id, turnOneAnswer.id, 'the conversation ends at turn one');
    // The panel's transcript follows: turn two is gone from it.
    await panel.locator('.message.user', { hasText: 'version-two' }).waitFor({ state: 'detached', timeout: 30_000 });
    await screenshot(page, 'checkpoints-rewound');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.locator('.notification-toast', { hasText: 'Undid the rewind' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n');
  });
  it('each turn lists the files it changed; Diff since here on turn two opens the diff from its start to the files now', async () => {
    const page = workbench!.page;
    const [session] = (await sendRequest(observer!.endpoint, sessionList, {})).sessions;
    const { entries } = await sendRequest(observer!.endpoint, sessionTranscript, { sessionId: session.id });
    const secondPrompt = entries.findIndex(e => e.kind === 'prompt' && JSON.stringify(e.message).includes('version-two'));
    const turnOneAnswer = entries[secondPrompt - 1];
    const turnTwoAnswer = entries.at(-1)!;
    assert.equal(turnTwoAnswer.kind, 'response');
    const panel = await openForksView(page);
    const files = (entryId: string) => panel.locator(`.message.assistant[data-vscode-context*="${entryId}"] .turn-file`);
    await files(turnTwoAnswer.id).first().waitFor({ timeout: 30_000 });
    const textOf = async (entryId: string) => (await files(entryId).evaluateAll(rows => rows.map(row => [...row.children].map(c => c.textContent).join(' '))));
    assert.deepEqual(await textOf(turnOneAnswer.id), ['A notes.txt +1 −0'], 'turn one added notes.txt');
    assert.deepEqual(await textOf(turnTwoAnswer.id), ['M notes.txt +1 −1'], 'turn two changed it');
    const turnTwo = panel.locator(`.message.assistant[data-vscode-context*="${turnTwoAnswer.id}"]`);
    await turnTwo.scrollIntoViewIfNeeded();
    await screenshot(page, 'checkpoints-turn-files');
    await turnTwo.getByRole('button', { name: /Diff since here/ }).click();
    await page.locator('.editor-group-container .tab', { hasText: 'Since the turn' }).waitFor({ timeout: 30_000 });
    // Left: notes.txt at turn two's start; right: the file now.
    const group = page.locator('.editor-group-container');
    await group.filter({ hasText: 'version-one' }).filter({ hasText: 'version-two' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'checkpoints-diff-since');
  });
});
