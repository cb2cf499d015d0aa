// What a user sees of forks from the Chat view (code-server + chromium, the demo model): the forks an
// answer starts show in that answer as items (name, state, model turns, +/− lines) with links that act on
// them (Open / Review / Apply / Stop while they run, Open Report / Review / Apply once ended); the answer
// ends with its turn and says where the forks go on (the Forks view); their approvals ask in a
// notification (never a modal) while the Forks view is hidden; and no text meant for the model (fork ids,
// worktree paths, the notification wrapper) reaches the rendered answers. Screenshots: test-results/chat-forks-*.png.
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { forksViewFrame, rowOf } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker, watchResponseLines, widenChat } from './workbenchUi';

/** Strings written for the model that must never show in the Chat view. */
const FOR_THE_MODEL = [/\bf-[0-9a-f]{8}-[0-9a-f]{4}/, /fork-agents-worktrees/, /<fork-notification>/, /continue with other work/i, /Reports that arrived meanwhile/, /\(id f-/];

function assertNothingForTheModel(text: string, where: string): void {
  for (const pattern of FOR_THE_MODEL) assert.doesNotMatch(text, pattern, `${where} shows text meant for the model (${pattern}):\n${text}`);
}

/** VS Code folds a finished answer's earlier parts into "Completed N steps": opened, so all of it is read. */
async function expandedText(response: Locator, shows: string): Promise<string> {
  const target = response.getByText(shows).first();
  // One click opens the fold; a second (on its label, say) would close it again.
  // The fold's label can sit under the chat's sticky title (a short answer at the top of the list), where
  // a pointer click lands on the title: the click is dispatched to the label itself.
  if (!(await target.isVisible())) await response.getByText(/^Completed \d+ steps?\b/).first().dispatchEvent('click');
  await target.waitFor({ timeout: 15_000 });
  return response.innerText();
}

async function linkNames(response: Locator): Promise<string[]> {
  return (await response.getByRole('link').allInnerTexts()).map(name => name.trim()).filter(Boolean);
}

/**
 * Answers a fork's approval from its notification (Allow), checking that no modal dialog asks instead.
 * The fork waits meanwhile; its answer has ended with the turn (Fork from here), items and all.
 */
async function allowFromNotification(page: Page, response: Locator, title: RegExp, shot: string): Promise<void> {
  const toast = page.locator('.notification-toast', { hasText: title });
  await toast.first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'a background fork never opens a modal dialog');
  await forkFromHere(response).waitFor({ timeout: 90_000 });
  await screenshot(page, shot);
  await toast.first().getByRole('button', { name: 'Allow' }).click();
}

/** A fork's end is said once: by its closing item in the answer, or else by the fork-finished notification. */
async function endSaidOnce(page: Page, answer: string, name: string): Promise<void> {
  const toast = page.locator('.notification-toast, .notifications-center .notification-list-item', { hasText: `Fork "${name}" completed.` });
  if (new RegExp(`Fork “${name.replace(/[.]/g, '\\.')}” completed`).test(answer)) assert.equal(await toast.count(), 0, `“${name}” ended in its answer and in a notification too`);
  else await toast.first().waitFor({ timeout: 90_000 });
}

describe('Forks in the Chat view (code-server + chromium)', function () {
  this.timeout(180_000);
  const answers: string[] = [];
  const run = uiRun('chat-forks', { stack: { streamDelayMs: 40, userSettings: { 'fork.approvalMode': 'ask' } } });

  it('shows the forks an answer starts as items that act on them, with their approvals in notifications', async () => {
    const page = run.page;
    await openChat(page);
    await widenChat(page, 620);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    const seen = await watchResponseLines(page);
    await sendInChat(page, '@fork in parallel, create A.md with a; read README.md');
    const response = lastResponse(page);
    // The fork that writes asks; the Forks view is not open, so a notification asks (no modal).
    await allowFromNotification(page, response, /Fork “create A\.md with a” wants to write A\.md/, 'chat-forks-approval');
    await screenshot(page, 'chat-forks-answer');
    const text = await expandedText(response, 'Started 2 forks');
    await screenshot(page, 'chat-forks-answer-expanded');
    answers.push(text);
    assert.match(text, /Started 2 forks: “create A\.md with a”, “read README\.md”/);
    // Each fork as it was when the answer ended: A waited for its approval (or had not yet asked).
    assert.match(text, /Fork “create A\.md with a” (waiting for approval|running) · \d model turns?/);
    assert.match(text, /Fork “read README\.md” (running · \d model turns?|completed · 2 model turns · no changes)/);
    if (/Fork “create A\.md with a” waiting for approval/.test(text)) {
      assert.ok(seen.includes('“create A.md with a” waits for your approval: answer in its notification or in the Forks view.'), `the answer said where the fork asks; lines seen:\n${seen.join('\n')}`);
    }
    assert.match(text, /keep(s)? working in the background while you go on chatting: the Forks view shows/);
    const links = await linkNames(response);
    // A fork still at work: Open / Review / Apply / Stop; one that had ended: Open Report (no changes: nothing to review).
    assert.ok(links.filter(l => l === 'Stop').length >= 1, `links: ${links.join(', ')}`);
    assert.equal(links.filter(l => l === 'Open' || l === 'Open Report').length, 2, `links: ${links.join(', ')}`);
    assertNothingForTheModel(text, 'the parallel-forks answer');
    assertNothingForTheModel(seen.join('\n'), 'the live lines of the parallel-forks answer');
    // Each fork's end is said once, and both have ended before the next check asks for their reports.
    await endSaidOnce(page, text, 'create A.md with a');
    await endSaidOnce(page, text, 'read README.md');
  });

  it('says in a sentence which reports arrived, and opens a report from the chat', async () => {
    assert.equal(answers.length, 1, 'needs the answer of the first check');
    const page = run.page;
    await sendInChat(page, '@fork thanks');
    const response = lastResponse(page);
    await forkFromHere(response).waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-forks-reports');
    // A report can also ride in the first answer's last request, if its fork ended first.
    const text = await expandedText(response, 'The report of fork');
    await screenshot(page, 'chat-forks-reports-expanded');
    answers.push(text);
    // A report can also ride in the first answer's last request, if its fork ended first.
    const both = answers.join('\n');
    for (const name of ['create A.md with a', 'read README.md']) {
      assert.ok(both.includes(`The report of fork “${name}” arrived`), `a sentence says the report of “${name}” arrived:\n${both}`);
    }
    assertNothingForTheModel(text, 'the report-arrival answer');
    // The link can sit under the chat's sticky title after the fold opened: pressed from the keyboard.
    await response.getByRole('link', { name: 'Open Report' }).first().focus();
    await page.keyboard.press('Enter');
    await page.locator('.editor-group-container .monaco-editor', { hasText: 'Scope:' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-forks-open-report');
  });

  it('shows a /fork fork in its answer the same way, and its links act on it after it ended', async () => {
    const page = run.page;
    await sendInChat(page, '@fork /fork create NOTES.md with notes from a fork');
    const response = lastResponse(page);
    await response.getByText(/It keeps working in the background while you go on chatting/).waitFor({ timeout: 60_000 });
    // Open Report (the check before) revealed the Forks view: the approval asks in the fork's row there.
    const panel = await forksViewFrame(page);
    const approval = rowOf(panel, 'create NOTES.md with notes from a fork').locator('.approval');
    await approval.waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'a background fork never opens a modal dialog');
    await screenshot(page, 'chat-forks-slash-approval');
    const text = await response.innerText();
    assert.match(text, /Started fork create NOTES\.md with notes from a fork in the background/);
    assert.match(text, /Fork “create NOTES\.md with notes from a fork” (running|waiting for approval) · \d model turns?/);
    assertNothingForTheModel(text, 'the /fork answer');
    assert.deepEqual(await linkNames(response), ['Open', 'Review', 'Apply', 'Stop']);
    await approval.getByRole('button', { name: /^Approve/ }).click();
    await rowOf(panel, 'create NOTES.md with notes from a fork').locator('.badge.state-completed').first().waitFor({ timeout: 90_000 });
    // The answer's Review link, clicked after the fork ended, shows what it changed.
    await response.getByRole('link', { name: 'Review', exact: true }).click();
    await page.locator('.tabs-container .tab', { hasText: /NOTES\.md|Fork changes: create NOTES\.md/ }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-forks-slash');
  });
});
