// UI checks of spending in a real workbench (code-server + chromium): the chat's cost line,
// a fork's cost and savings in its row, a fork the CLI started with a token budget shown paused (budget)
// with Continue and Stop, Continue with a raised budget, Stop, the cache explorer's bars and the panel's
// totals. Screenshots go to test-results/spend-*.png.
import * as assert from 'node:assert/strict';
import type { Frame, Locator } from 'playwright-core';
import { panelResponder } from '../fakes/panelScript';
import { usdText } from '../../src/common/pricing';
import { openForksView, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';

describe('Spending UI (code-server + chromium)', function () {
  this.timeout(180_000);
  const run = uiRun('spend', {
    fake: { models: 'none', responder: panelResponder(), streamDelayMs: 5 },
    // Both application-scoped: read from user settings only (a workspace's value is ignored).
    stack: { userSettings: { 'fork.approvalMode': 'auto', 'fork.prices': { 'claude-sonnet-5-5': { input: 3, output: 15 } } } },
  });
  const cli = run.cli;
  let panel: Frame | undefined;
  let sessionId = '';

  interface ListedItem { type: 'session' | 'fork'; id: string; cost?: { usd: number } }
  /** What `fork-agents list --json` prints: one JSON object per line, sessions and forks. */
  async function listed(): Promise<ListedItem[]> {
    return (await cli('list', '--json')).trim().split('\n').filter(Boolean).map(line => JSON.parse(line) as ListedItem);
  }

  /** The chat the first check started, read from the store: a later check still runs when the first one failed after its chat was stored. */
  async function chatSessionId(): Promise<string> {
    if (!sessionId) {
      sessionId = (await listed()).find(item => item.type === 'session')?.id ?? '';
    }
    assert.ok(sessionId, 'the store holds no chat: the first check\'s chat never reached the runtime');
    return sessionId;
  }

  async function forksPanel(): Promise<Frame> {
    if (!panel) {
      panel = await openForksView(run.page);
      await widenSideBar(run.page, 460);
    }
    return panel;
  }

  async function forkWithBudget(directive: string, budget: string): Promise<Locator> {
    const forkId = (await cli('fork', '--session', await chatSessionId(), '--isolation', 'shared', '--budget', budget, directive)).trim();
    assert.match(forkId, /^f-/);
    return (await forksPanel()).locator(`.fork[data-fork-id="${forkId}"]`);
  }

  it('shows the chat\'s cost in its context line', async () => {
    const page = run.page;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork list the files');
    const response = lastResponse(page);
    await response.filter({ hasText: 'this chat with its forks' }).waitFor({ timeout: 90_000 });
    await chatSessionId();
    assert.match(await response.innerText(), /Cost on claude-sonnet-5-5: \$[\d.]+ this turn · \$[\d.]+ this chat with its forks · (the prompt cache saved \$[\d.]+ this turn|cache writes cost \$[\d.]+ more this turn; later turns read them)\./);
    await screenshot(page, 'spend-chat');
  });

  it('a fork the CLI started with a token budget shows paused (budget), its cost and cache bars, and continues with a raised budget', async () => {
    const page = run.page;
    const panel = await forksPanel();
    const row = await forkWithBudget('survey slow and steady', '12000tokens');
    await row.locator('.badge', { hasText: 'paused (budget)' }).waitFor({ timeout: 60_000 });
    assert.match(await row.locator('.paused-reason').innerText(), /budget of 12000 tokens is reached/);
    assert.equal(await row.locator('.fork-paused').getByRole('button', { name: 'Continue' }).count(), 1);
    assert.equal(await row.locator('.fork-paused').getByRole('button', { name: 'Stop' }).count(), 1);
    assert.match(await row.locator('.fork-cost').innerText(), /^\$[\d.]+ · saved \$[\d.]+ vs uncached · budget [\d.]+k of 12k tokens$/);
    await row.locator('.fork-toggle').click();
    await row.locator('.cache-bar').first().waitFor({ timeout: 10_000 });
    assert.ok((await row.locator('.cache-bar').count()) >= 2, 'one bar per request');
    assert.equal(await row.locator('.cache-bar').first().getAttribute('data-cause'), 'extended', 'the first request extends the parent\'s');
    assert.match(await panel.locator('.spend-totals').innerText(), /^Forks spent \$[\d.]+ \(the prompt cache saved \$[\d.]+\)$/);
    await screenshot(page, 'spend-paused');

    await row.locator('.budget-input').fill('2000000tokens');
    await row.locator('.fork-paused').getByRole('button', { name: 'Continue' }).click();
    await row.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 120_000 });
    assert.equal(await row.locator('.fork-paused').isHidden(), true);
    assert.match(await row.locator('.fork-cost').innerText(), /budget [\d.]+k of 2M tokens$/);
    await screenshot(page, 'spend-continued');

    // With fork.prices set, one fork shows one cost: its row, the CLI's list and transcript (the same runtime,
    // the same requests), and the panel's total over every fork.
    const forkId = (await row.getAttribute('data-fork-id'))!;
    const rowCost = /^(\$[\d.]+) ·/.exec(await row.locator('.fork-cost').innerText())![1];
    const total = JSON.parse((await cli('transcript', '--fork', forkId, '--json')).trim().split('\n').pop()!);
    assert.equal(total.priceFrom, 'setting');
    assert.equal(usdText(total.cost.usd), rowCost, 'the transcript and the row agree');
    const forks = (await listed()).filter(item => item.type === 'fork');
    assert.equal(usdText(forks.find(f => f.id === forkId)!.cost!.usd), rowCost, 'the list and the row agree');
    const all = forks.reduce((sum, f) => sum + (f.cost?.usd ?? 0), 0);
    assert.ok((await panel.locator('.spend-totals').innerText()).startsWith(`Forks spent ${usdText(all)} `), 'the panel\'s total is the sum of the same figures');
  });

  it('shows the chat\'s own cost and its cache bars above the conversation', async () => {
    const page = run.page;
    const conversation = (await forksPanel()).locator('.section[data-section="conversation"]');
    assert.match(await conversation.locator('.chat-cost').innerText(), /^This chat: \$[\d.]+ \((the prompt cache saved \$[\d.]+|cache writes cost \$[\d.]+ more; later requests read them)\)$/);
    assert.ok((await conversation.locator('.cache-bar').count()) >= 2, 'one bar per chat request');
    assert.equal(await conversation.locator('.cache-bar').first().getAttribute('data-cause'), 'first');
    await conversation.locator('.chat-cost').scrollIntoViewIfNeeded();
    await screenshot(page, 'spend-conversation');
  });

  it('Stop ends a paused fork', async () => {
    const page = run.page;
    const row = await forkWithBudget('another slow survey', '8000tokens');
    await row.locator('.badge', { hasText: 'paused (budget)' }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'spend-paused-second');
    await row.locator('.fork-paused').getByRole('button', { name: 'Stop' }).click();
    await row.locator('.badge', { hasText: 'cancelled' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'spend-stopped');
  });
});
