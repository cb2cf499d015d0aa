// The Chat view's answers do not hold the user up (code-server + chromium, the demo model, models listed by
// the endpoint): the picker starts at fork.model; the chat's own approvals ask inline in the answer (no
// modal); cost lines never show a negative saving; a /fork answer ends while its fork still works, so the
// next message is answered meanwhile, and the fork still completes; a fork whose end an answer shows gets
// no second notification; after a window reload an earlier answer's fork links still work.
// Screenshots: test-results/chat-answers-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { pickedModel, waitForPickedModel } from './chatContextUi';
import { openForksView, rowOf } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, widenChat } from './workbenchUi';

const SLASH_FORK = 'create NOTES.md with notes from a fork';
const PARALLEL = '@fork in parallel, read README.md; list the files';

/** The answer's links (fork items are links, so they still work in a restored chat). */
async function linkNames(response: Locator): Promise<string[]> {
  return (await response.getByRole('link').allInnerTexts()).map(name => name.trim()).filter(Boolean);
}

function noModal(page: Page): Promise<void> {
  return page.locator('.monaco-dialog-box').count().then(count => assert.equal(count, 0, 'no modal dialog asks'));
}

describe('Chat answers that do not hold the user up (code-server + chromium)', function () {
  this.timeout(180_000);
  const run = uiRun('chat-answers', { stack: { models: true, streamDelayMs: 40, userSettings: { 'fork.approvalMode': 'ask' } } });

  it('starts the model picker at fork.model when the endpoint lists its models, and says what a first turn\'s cache writes cost', async () => {
    const page = run.page;
    await openChat(page);
    await widenChat(page, 620);
    // The endpoint lists Claude Fable 5 and others that sort before Claude Sonnet 5.5 (fork.model's default).
    await waitForPickedModel(page, '★ Claude Sonnet 5.5');
    await screenshot(page, 'chat-answers-picker');
    assert.equal(await pickedModel(page), '★ Claude Sonnet 5.5');
    // One request that writes the cache and reads nothing: it costs more than uncached, and says so in words.
    await sendInChat(page, '@fork hello');
    const response = lastResponse(page);
    await forkFromHere(response).waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-answers-first-turn-cost');
    const text = await response.innerText();
    assert.match(text, /Cost on claude-sonnet-5-5: \$[\d.]+ this turn · \$[\d.]+ this chat with its forks · cache writes cost \$[\d.]+ more this turn; later turns read them\./);
    assert.doesNotMatch(text, /−\$|-\$/);
  });

  it('asks for the chat\'s own approval inline in its answer, titled with the tool and its target', async () => {
    const page = run.page;
    await sendInChat(page, '@fork create CHAT.md with hello from the chat');
    const response = lastResponse(page);
    const allow = response.getByRole('button', { name: 'Allow' });
    await allow.waitFor({ timeout: 60_000 });
    await noModal(page);
    // The code block renders spaces as no-break spaces.
    assert.match(await response.innerText(), /@fork wants to write CHAT\.md\s+Tool:\swrite_file\s\(changes\sfiles\)\s+path:\sCHAT\.md/);
    assert.equal(await response.getByRole('button', { name: 'Deny' }).count(), 1);
    await screenshot(page, 'chat-answers-approval');
    await allow.click();
    await forkFromHere(response).waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-answers-approved');
    const text = await response.innerText();
    assert.match(text, /Allowed\./);
    assert.equal(fs.readFileSync(path.join(run.stack.workspace.folder, 'CHAT.md'), 'utf8'), 'hello from the chat\n');
    // The first turn writes the cache; what that cost is said in words, never as a negative saving.
    assert.doesNotMatch(text, /−\$|-\$/);
    assert.match(text, /Cost on claude-sonnet-5-5: \$[\d.]+ this turn · \$[\d.]+ this chat with its forks · (cache writes cost \$[\d.]+ more this turn; later turns read them|the prompt cache saved \$[\d.]+ this turn)\./);
  });

  it('ends a /fork answer while its fork works: the next message is answered meanwhile, and the fork completes', async () => {
    const page = run.page;
    await sendInChat(page, `@fork /fork ${SLASH_FORK}`);
    const forkAnswer = lastResponse(page);
    await forkAnswer.getByText(/keeps working in the background while you go on chatting/).waitFor({ timeout: 60_000 });
    // The fork asks to write NOTES.md: with the Forks view hidden a notification asks, and it waits.
    const asking = page.locator('.notification-toast', { hasText: `Fork “${SLASH_FORK}” wants to write NOTES.md` });
    await asking.first().waitFor({ timeout: 60_000 });
    await noModal(page);
    assert.deepEqual(await linkNames(forkAnswer), ['Open', 'Review', 'Apply', 'Stop']);
    assert.match(await forkAnswer.innerText(), new RegExp(`Fork “${SLASH_FORK}” (running|waiting for approval) · \\d model turns?`));
    await screenshot(page, 'chat-answers-slash');
    // The toast sits over the chat input. Clearing it answers nothing: the fork still waits, and its row asks.
    await asking.first().hover();
    await asking.first().locator('.codicon-notifications-clear').click();
    await asking.first().waitFor({ state: 'detached', timeout: 15_000 });

    // The next message goes out and is answered while the fork still waits.
    await sendInChat(page, '@fork read README.md');
    const next = lastResponse(page);
    await forkFromHere(next).waitFor({ timeout: 60_000 });
    assert.match(await next.innerText(), /README/);
    const panel = await openForksView(page);
    const row = rowOf(panel, SLASH_FORK);
    await row.locator('.badge.state-waiting-for-approval').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-answers-next-while-fork-runs');

    await row.locator('.approval').getByRole('button', { name: /^Approve/ }).click();
    await row.locator('.badge.state-completed').first().waitFor({ timeout: 90_000 });
    // Its answer showed it running, so the notification is the one that says it finished.
    await page.locator('.notification-toast', { hasText: `Fork "${SLASH_FORK}" completed.` }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-answers-fork-completed');
  });

  it('shows a fork\'s end once: in the answer that started it, or in one notification', async () => {
    const page = run.page;
    await sendInChat(page, PARALLEL);
    const response = lastResponse(page);
    await forkFromHere(response).waitFor({ timeout: 90_000 });
    const panel = await openForksView(page);
    for (const name of ['read README.md', 'list the files']) await rowOf(panel, name).locator('.badge.state-completed').first().waitFor({ timeout: 90_000 });
    const text = await response.innerText();
    await screenshot(page, 'chat-answers-parallel');
    for (const name of ['read README.md', 'list the files']) {
      const inAnswer = new RegExp(`Fork “${name}” completed`).test(text);
      const toast = page.locator('.notification-toast, .notifications-center .notification-list-item', { hasText: `Fork "${name}" completed.` });
      if (!inAnswer) await toast.first().waitFor({ timeout: 30_000 });
      else assert.equal(await toast.count(), 0, `“${name}” ended in its answer and in a notification too`);
    }
  });

  it('keeps an earlier answer\'s fork links working after a window reload', async () => {
    const page = run.page;
    await run.reload({ lastMessage: PARALLEL });
    await openChat(page);
    // The last answer (the parallel forks'), restored: the chat drops answers scrolled far out of view.
    const restored = page.locator('.interactive-response', { hasText: 'keep working in the background' }).last();
    await restored.waitFor({ timeout: 60_000 });
    const open = restored.getByRole('link', { name: 'Open', exact: true }).first();
    await open.waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-answers-after-reload');
    await open.click();
    // The fork has finished since: Open shows its report.
    await page.locator('.editor-group-container .monaco-editor', { hasText: 'Fork: read README.md' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-answers-open-after-reload');
  });
});
