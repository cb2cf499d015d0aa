// The README's first screen as a newcomer gets it (code-server + chromium, the demo model): "summarise
// the project" is understood in the chat and as a fork's directive, and the demo fork's report renders
// in the Forks view as its sections. Its screenshots are the README's images (docs/first-*.png are copies
// of test-results/first-screen-*.png from a run).
import * as assert from 'node:assert/strict';
import { openForksView, rowOf, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker, widenChat } from './workbenchUi';

const SLASH_FORK = '@fork /fork summarise the project';

describe('The first screen with the demo model (code-server + chromium)', function () {
  this.timeout(240_000);
  const run = uiRun('first-screen', { stack: { streamDelayMs: 20, userSettings: { 'fork.approvalMode': 'auto-edit' } } });

  it('summarises the project in the chat and in a fork, whose report shows as its sections', async () => {
    const page = run.page;
    await openChat(page);
    await widenChat(page, 560);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork summarise the project');
    const answer = lastResponse(page);
    await forkFromHere(answer).waitFor({ timeout: 90_000 });
    const text = await answer.innerText();
    assert.match(text, /A summary of the project, from its files and its README:/);
    assert.match(text, /The workspace has \d+ files/);
    assert.match(text, /README\.md begins with:/);
    assert.doesNotMatch(text, /do not understand/);
    await screenshot(page, 'first-screen-chat');

    await sendInChat(page, SLASH_FORK);
    // The answer ends with the fork at work; the fork-finished notification says when it is done.
    await lastResponse(page).getByText(/It keeps working in the background/).waitFor({ timeout: 90_000 });
    await page.locator('.notification-toast', { hasText: 'Fork "summarise the project" completed.' }).first().waitFor({ timeout: 90_000 });
    const panel = await openForksView(page);
    await widenSideBar(page, 460);
    const row = rowOf(panel, 'summarise the project');
    await row.locator('.fork-toggle').click();
    const terms = row.locator('.report-sections dt');
    await terms.first().waitFor({ timeout: 30_000 });
    // The demo's report is written like a model's: its Result a list under a heading, then the other labels.
    assert.deepEqual(await terms.allInnerTexts(), ['Scope', 'Result', 'Key files', 'Files changed', 'Verification']);
    assert.match(await row.locator('.report-sections dd').nth(1).innerText(), /^A summary of the project/);
    assert.equal(await row.locator('.report-sections dd').nth(3).innerText(), 'none');
    assert.doesNotMatch(await row.locator('.report').innerText(), /do not understand/);
    await screenshot(page, 'first-screen-fork-report');
  });

  it('keeps Fork from here usable after a reload: the restored answer\'s link still asks for a directive', async () => {
    const page = run.page;
    await run.reload({ lastMessage: SLASH_FORK });
    await openChat(page);
    const restored = page.locator('.interactive-response', { hasText: 'A summary of the project' }).first();
    const link = forkFromHere(restored);
    await link.waitFor({ timeout: 60_000 });
    await link.hover();
    await page.locator('.monaco-hover, .workbench-hover', { hasText: 'Start a background fork that inherits the conversation up to this answer' }).first().waitFor({ timeout: 15_000 });
    await screenshot(page, 'first-screen-after-reload');
    await link.click();
    const input = page.locator('.quick-input-widget input');
    // The command's input box comes from the extension host, which after a reload is still busy on a loaded
    // machine (at load 20 it took over 15 s).
    await input.waitFor({ state: 'visible', timeout: 45_000 });
    assert.match(await page.locator('.quick-input-widget').innerText(), /Fork from here/);
    await input.press('Escape');
  });
});
