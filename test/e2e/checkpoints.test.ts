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
import type { Entry } from '../../src/common/transcript';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { sessionList, sessionTranscript } from '../../src/common/protocol/runtime';
import { openForksView, rowOf, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import { addWorktreeContributions, explorerRoot, Gate, setUserSettings, showExplorer, worktreeResponder } from './worktreeSupport';

describe('Code checkpoints: Fork from here at an earlier message (code-server + chromium)', function () {
  this.timeout(180_000);
  const gate = new Gate();
  const run = uiRun('checkpoints', {
    fake: { models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 20 },
    prepare: ({ stack }) => {
      addWorktreeContributions(stack.codeServer.extensionsDir);
      // "always": the fork below only looks at its files, and this check opens them from the Explorer
      // (by default a fork's folder joins the workspace only once it writes).
      setUserSettings(stack.codeServer.userDataDir, { 'fork.approvalMode': 'auto-edit', 'fork.worktree.addToWorkspace': 'always' });
    },
    release: () => gate.release(),
  });

  /** Turn one's answer: the last entry before the second prompt; turn two's: the last entry. */
  async function turnAnswers(): Promise<{ sessionId: string; turnOne: Entry; turnTwo: Entry }> {
    const observer = await run.observer();
    const [session] = (await sendRequest(observer.endpoint, sessionList, {})).sessions;
    const { entries } = await sendRequest(observer.endpoint, sessionTranscript, { sessionId: session.id });
    const secondPrompt = entries.findIndex(e => e.kind === 'prompt' && JSON.stringify(e.message).includes('version-two'));
    assert.ok(secondPrompt > 0, 'the chat has its two turns');
    return { sessionId: session.id, turnOne: entries[secondPrompt - 1], turnTwo: entries.at(-1)! };
  }

  async function chat(page: Page, prompt: string): Promise<void> {
    const before = await page.locator('.interactive-response').count();
    await sendInChat(page, prompt);
    await page.locator('.interactive-response').nth(before).waitFor({ timeout: 30_000 });
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
  }

  it('right-click › Fork from here on turn one: the fork\'s workspace folder has notes.txt "version-one"', async () => {
    const page = run.page;
    const repo = run.stack.workspace.folder;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await chat(page, '@fork create notes.txt with version-one');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-one\n');
    await chat(page, '@fork create notes.txt with version-two');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n');
    const { turnOne } = await turnAnswers();
    assert.equal(turnOne.kind, 'response');

    const panel = await openForksView(page);
    await widenSideBar(page, 440);
    const message = panel.locator(`.message.assistant[data-vscode-context*="${turnOne.id}"]`);
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
    await input.waitFor({ state: 'hidden', timeout: 10_000 });
    // The user moves on while the fork starts (its worktree is made first): the palette opened meanwhile
    // stays open when the fork's row is opened in the panel; taking the focus there would close it.
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    const row = rowOf(panel, 'look at the notes');
    await row.locator('.fork-toggle[aria-expanded="true"]').waitFor({ timeout: 30_000 });
    assert.ok(await input.isVisible(), 'the fork\'s start took the focus: the palette the user had open closed');
    await page.keyboard.press('Escape');
    const observer = await run.observer();
    const [fork] = (await sendRequest(observer.endpoint, forkList, {})).forks;
    try {
      assert.equal(fork.parentEntryId, turnOne.id);
      assert.equal(fork.isolation, 'worktree');
      assert.equal(fs.readFileSync(path.join(fork.worktree!.path, 'notes.txt'), 'utf8'), 'version-one\n', 'the worktree starts at turn one\'s code');
      assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n', 'the main tree keeps today\'s');

      // The fork's workspace folder in the Explorer: open its notes.txt.
      await showExplorer(page);
      const root = explorerRoot(page, `Fork: ${fork.name}`);
      await root.waitFor({ timeout: 30_000 });
      // The notes.txt row under the fork's root (the main folder has one too). The list renders the
      // root's children a moment after it expands and may re-number its rows meanwhile, and the workbench
      // may expand a new root itself just after we read it collapsed (our click then folds it), so wait in
      // the page for such a row, expanding the root again while it shows none.
      const noteRow = (rootName: string): string | undefined => {
        // This project's Node tsconfig has no DOM lib: the page's document, typed as much as used.
        interface Row { textContent: string | null; getAttribute(name: string): string | null; querySelector(s: string): { textContent: string | null } | null }
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Row> } }).document;
        const rows = [...doc.querySelectorAll('.explorer-folders-view .monaco-list-row')];
        const rootRow = rows.find(row => row.textContent?.includes(rootName));
        if (!rootRow) return undefined;
        const rootIndex = Number(rootRow.getAttribute('data-index'));
        const note = rows.find(row => Number(row.getAttribute('data-index')) > rootIndex && row.querySelector('.label-name')?.textContent?.trim() === 'notes.txt');
        return note?.getAttribute('data-index') ?? undefined;
      };
      let noteIndex: string | undefined;
      for (let attempt = 1; attempt <= 3 && noteIndex === undefined; attempt++) {
        if ((await root.getAttribute('aria-expanded')) !== 'true') await root.click();
        noteIndex = await page.waitForFunction(noteRow, `Fork: ${fork.name}`, { timeout: 5_000 }).then(handle => handle.jsonValue()).catch(() => undefined);
      }
      assert.ok(noteIndex !== undefined, 'notes.txt shows under the fork\'s folder');
      await page.locator(`.explorer-folders-view .monaco-list-row[data-index="${noteIndex}"]`).click();
      const editor = page.locator('.editor-instance .view-lines');
      await editor.filter({ hasText: 'version-one' }).waitFor({ timeout: 15_000 });
      await screenshot(page, 'checkpoints-fork-folder');
    } finally {
      // The fork ends whatever happened above: the tests after this one start with no fork at work.
      gate.release();
    }
    assert.equal((await sendRequest(observer.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
  });

  it('right-click › Rewind to here on turn one puts notes.txt back in the main folder, and Undo brings version-two back', async () => {
    const page = run.page;
    const repo = run.stack.workspace.folder;
    const { sessionId, turnOne: turnOneAnswer } = await turnAnswers();
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
    const after = await sendRequest((await run.observer()).endpoint, sessionTranscript, { sessionId });
    assert.equal(after.entries.at(-1)!.id, turnOneAnswer.id, 'the conversation ends at turn one');
    // The panel's transcript follows: turn two is gone from it.
    await panel.locator('.message.user', { hasText: 'version-two' }).waitFor({ state: 'detached', timeout: 30_000 });
    await screenshot(page, 'checkpoints-rewound');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.locator('.notification-toast', { hasText: 'Undid the rewind' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'version-two\n');
  });
  it('each turn lists the files it changed; Diff since here on turn two opens the diff from its start to the files now', async () => {
    const page = run.page;
    const { turnOne: turnOneAnswer, turnTwo: turnTwoAnswer } = await turnAnswers();
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
