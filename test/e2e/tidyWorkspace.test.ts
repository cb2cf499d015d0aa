// A tidy Explorer with worktree forks (code-server + chromium), with the default
// `fork.worktree.addToWorkspace` (onWrite): a fork that only reads adds no workspace root; a fork that
// writes adds one named after it once it has written; Apply and Keep take the root away again, and the
// Forks view's Folder still reaches a fork whose folder is not in the workspace.
// Screenshots: test-results/tidy-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { RuntimeClient } from '../../src/client/rpcClient';
import type { ForkSummary } from '../../src/common/forks';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkState, forkWait } from '../../src/common/protocol/forks';
import { openForksView, rowOf } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, RESULTS_DIR, screenshot, sendInChat, typeInChat, waitForModelInPicker } from './workbenchUi';
import { Gate, explorerRoot, runCommandAndPick, showExplorer, worktreeResponder } from './worktreeSupport';

/** The Explorer's root rows: a multi-root workspace shows each folder as a row at the first level. */
async function rootNames(page: Page): Promise<string[]> {
  return page.locator('.explorer-folders-view .monaco-list-row[aria-level="1"]').allInnerTexts().then(names => names.map(n => n.trim()));
}

describe('Worktree forks keep the Explorer tidy (code-server + chromium)', function () {
  this.timeout(240_000);
  const gate = new Gate();
  const run = uiRun('tidy', {
    fake: { models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 30 },
    stack: { userSettings: { 'fork.approvalMode': 'auto-edit' } },
    release: () => gate.release(),
  });
  let observer: RuntimeClient | undefined;
  before(async () => {
    observer = await run.observer();
  });

  /** The first fork that `match` accepts, as the runtime lists it or announces it (fork/state). */
  async function waitForFork(match: (fork: ForkSummary) => boolean): Promise<ForkSummary> {
    let found!: (fork: ForkSummary) => void;
    const arrived = new Promise<ForkSummary>(resolve => (found = resolve));
    // Subscribed before listing, so a fork that starts between the two is not missed.
    const subscription = onNotification(observer!.endpoint, forkState, ({ fork }) => match(fork) && found(fork));
    try {
      const listed = (await sendRequest(observer!.endpoint, forkList, {})).forks.find(match);
      return listed ?? (await arrived);
    } finally {
      subscription.dispose();
    }
  }

  /**
   * Sends a chat message and waits for what its answer shows. The chat list draws only the turns on
   * screen, so counting its requests (as sendInChat does) miscounts once older ones scroll away.
   */
  async function ask(text: string, answerShows: string | RegExp): Promise<void> {
    const page = run.page;
    await typeInChat(page, text);
    if (await page.locator('.interactive-input-part .suggest-widget.visible').count()) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await page.locator('.interactive-response').filter({ hasText: answerShows }).last().waitFor({ timeout: 90_000 });
  }

  async function fork(directive: string, name: string): Promise<ForkSummary> {
    const before = new Set((await sendRequest(observer!.endpoint, forkList, {})).forks.map(f => f.id));
    await ask(`@fork /fork ${directive}`, `Started fork ${name}`);
    const started = (await sendRequest(observer!.endpoint, forkList, {})).forks.filter(f => !before.has(f.id));
    assert.equal(started.length, 1);
    return started[0];
  }

  it('adds no root for a fork that only reads, one for a fork that writes, and takes it away on Apply and on Keep', async () => {
    const page = run.page;
    const repo = run.stack.workspace.folder;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork hello');
    const link = forkFromHere(lastResponse(page));
    await link.waitFor({ timeout: 60_000 });
    await showExplorer(page);
    const alone = await rootNames(page);

    // The first fork comes from the answer's small Fork from here link, which says what it does on hover.
    await link.hover();
    const tip = 'Start a background fork that inherits the conversation up to this answer';
    await page.locator('.monaco-hover, .workbench-hover, .hover-contents', { hasText: tip }).first().waitFor({ timeout: 15_000 }).catch(async (error: Error) => {
      throw new Error(`${error.message.split('\n')[0]}: no hover; the link is ${await link.evaluate(el => el.outerHTML)}`);
    });
    await screenshot(page, 'tidy-fork-from-here-hover');
    await link.click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('write TODO.md');
    await input.press('Enter');
    await page.locator('.notification-toast', { hasText: 'started in the background' }).first().waitFor({ timeout: 30_000 });
    const keeper = (await sendRequest(observer!.endpoint, forkList, {})).forks[0];
    assert.equal(keeper.origin, 'message');
    await explorerRoot(page, `Fork: ${keeper.name}`).waitFor({ timeout: 30_000 });

    // A second real turn, then a fork of only the last one that reads (no root for it).
    await ask('@fork list the files', 'Here is what I found');
    const reader = await fork('--turns 1 read README.md', 'read README.md');
    assert.equal(reader.isolation, 'worktree');
    assert.equal(reader.forkTurns, '1');
    assert.equal((await sendRequest(observer!.endpoint, forkWait, { forkId: reader.id })).state, 'completed');
    // The writer from the Forks view's form (the chat list keeps few turns on screen at once).
    const known = new Set((await sendRequest(observer!.endpoint, forkList, {})).forks.map(f => f.id));
    const form = await openForksView(page);
    await form.locator('#directive').fill('write NOTES.md');
    await form.getByRole('button', { name: 'Start fork' }).click();
    const writer = await waitForFork(f => !known.has(f.id) && f.directive === 'write NOTES.md');
    await showExplorer(page);
    await explorerRoot(page, `Fork: ${writer.name}`).waitFor({ timeout: 30_000 });
    // The reader finished before the writer started and never got a root: only the writers' roots are new.
    assert.deepEqual(await rootNames(page), [...alone, `Fork: ${keeper.name}`, `Fork: ${writer.name}`]);
    assert.equal(await explorerRoot(page, `Fork: ${reader.name}`).count(), 0, 'a fork that only read adds no root');
    await screenshot(page, 'tidy-writer-roots');

    gate.release();
    assert.equal((await sendRequest(observer!.endpoint, forkWait, { forkId: writer.id })).state, 'completed');
    await runCommandAndPick(page, 'Fork: Apply Fork Changes', 'Which fork?', writer.name);
    await page.locator('.notification-toast', { hasText: /Applied/ }).first().waitFor({ timeout: 30_000 });
    await explorerRoot(page, `Fork: ${writer.name}`).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(repo, 'NOTES.md'), 'utf8'), 'Notes written by a fork in its own worktree.\n');
    assert.deepEqual(await rootNames(page), [...alone, `Fork: ${keeper.name}`], 'Apply took the writer\'s root away');
    await screenshot(page, 'tidy-after-apply');

    assert.equal((await sendRequest(observer!.endpoint, forkWait, { forkId: keeper.id })).state, 'completed');
    await runCommandAndPick(page, 'Fork: Keep Fork Branch', 'Which fork?', keeper.name);
    await page.locator('.notification-toast', { hasText: `Kept fork "${keeper.name}"` }).waitFor({ timeout: 30_000 });
    await explorerRoot(page, `Fork: ${keeper.name}`).waitFor({ state: 'detached', timeout: 30_000 });
    assert.ok(fs.existsSync(path.join(keeper.worktree!.path, 'TODO.md')), 'kept: the worktree stays on disk');
    assert.deepEqual(await rootNames(page), alone);
    await screenshot(page, 'tidy-after-keep');

    // The Forks view still reaches the reader's folder: Folder offers to add it or open it elsewhere.
    const frame = await openForksView(page);
    const row = rowOf(frame, reader.name);
    await row.locator('.fork-toggle').click();
    // Its report (a list under Result, a bold label, an indented one, a heading) reads as five sections.
    const terms = row.locator('.report-sections dt');
    await terms.first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await terms.allInnerTexts(), ['Scope', 'Result', 'Key files', 'Files changed', 'Verification']);
    assert.deepEqual(await row.locator('.report-sections dd').nth(1).locator('li').allInnerTexts(), ['read it', 'nothing to change']);
    assert.equal(await row.locator('.report pre').count(), 0, 'no section became a code block');
    // Its cache: a fork of the last turn cannot match its parent's conversation, which is expected: a
    // note in plain words, no warning; the bars' colours explained; the usage line names its request.
    assert.deepEqual(await row.locator('.cache-legend .cache-key').allInnerTexts(), ['read from cache', 'written to cache', 'not cached']);
    assert.equal(await row.locator('.cache-bar').first().getAttribute('data-cause'), 'messages');
    assert.match(await row.locator('.cache-bar').first().getAttribute('class') ?? '', /\bexpected\b/);
    assert.match(await row.locator('.cache-note.info').first().innerText(), /^Request 1: this fork inherits only the last 1 turn\(s\), so its conversation starts elsewhere than its parent's/);
    assert.equal(await row.locator('.cache-note.miss').count(), 0, 'nothing shown as a fault');
    assert.doesNotMatch(await row.innerText(), /message block/i);
    assert.match(await row.locator('.fork-usage').innerText(), /first request \d+% cached/);
    await row.locator('.cache-section').screenshot({ path: path.join(RESULTS_DIR, 'tidy-cache-expected.png') });
    await row.locator('.report-section').screenshot({ path: path.join(RESULTS_DIR, 'tidy-report-sections.png') });
    await row.locator('.fork-actions button', { hasText: 'Folder' }).click({ timeout: 30_000 });
    await page.locator('.notification-toast', { hasText: 'outside this workspace' }).getByRole('button', { name: 'Add to Workspace' }).click({ timeout: 30_000 });
    await showExplorer(page);
    await explorerRoot(page, `Fork: ${reader.name}`).waitFor({ timeout: 30_000 });
    await screenshot(page, 'tidy-folder-from-forks-view');
  });
});
