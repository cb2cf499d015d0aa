// Forks outlive a window reload. Two forks started from the chat keep running in the detached
// runtime while the window reloads (the extension host restarts); both finish and their reports are
// announced in the reloaded window, whose Forks view also shows what they did before the reload.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { isTerminal } from '../../src/common/forks';
import type { ForkSummary } from '../../src/common/forks';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkState, forkWait } from '../../src/common/protocol/forks';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { openForksView, rowOf } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, widenChat } from './workbenchUi';

describe('Forks across a window reload (code-server + chromium)', function () {
  this.timeout(180_000);
  // Slow streaming keeps the forks running long enough to reload the window in the middle of them.
  const run = uiRun('reload', { stack: { streamDelayMs: 150 } });

  it('keeps two forks running through a reload; both finish and their reports are shown after it', async () => {
    const page = run.page;
    await openChat(page);
    await widenChat(page, 560);
    await page.locator('.interactive-input-part', { hasText: 'claude' }).first().waitFor({ timeout: 60_000 });
    await sendInChat(page, '@fork hello');
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });

    for (const directive of ['/fork list the files and read README.md', '/fork --turns 1 list the files and read src/greet.js']) {
      await sendInChat(page, `@fork ${directive}`);
      await page.locator('.interactive-response', { hasText: 'Started fork' }).nth(directive.includes('--turns') ? 1 : 0).waitFor({ timeout: 60_000 });
    }
    await screenshot(page, 'fork-reload-started');

    // A second client of the same runtime watches the forks independently of the window.
    const observer = await run.observer();
    // Reload once the first fork has made its first tool call: the reloaded window learns of it only from its transcript.
    const before = await waitForForks(observer, forks => forks.length === 2 && forks[0].modelTurns >= 1);
    assert.ok(before.some(fork => !isTerminal(fork.state)), `a fork is still running at the reload: ${before.map(f => f.state).join(', ')}`);
    const runtimePid = runtimePidOf(run.stack.storeDir);

    // Not waiting for the chat's save: the reload is meant to land while the forks run.
    await run.reload();

    const done = await Promise.all(before.map(fork => sendRequest(observer.endpoint, forkWait, { forkId: fork.id })));
    assert.deepEqual(done.map(fork => fork.state), ['completed', 'completed']);
    for (const fork of done) assert.match(fork.report ?? '', /Here is what I found/);
    assert.equal(runtimePidOf(run.stack.storeDir), runtimePid, 'the same runtime ran them: they survived, not revived');

    // The reloaded window announces the forks that were still running at the reload (the first may have
    // finished, and been announced, before the reload).
    const runningAtReload = new Set(before.filter(fork => !isTerminal(fork.state)).map(fork => fork.id));
    for (const fork of done.filter(fork => runningAtReload.has(fork.id))) {
      await page.locator('.notification-toast', { hasText: `Fork "${fork.name}" completed.` }).waitFor({ timeout: 60_000 });
    }
    await screenshot(page, 'fork-reload-reports');

    // The Forks view shows each fork's output from before the reload: its tool calls and its answer.
    const panel = await openForksView(page);
    const row = rowOf(panel, 'list the files and read README.md');
    await row.locator('.fork-toggle').click();
    await row.locator('.output-details > summary').click();
    await row.locator('.out-tool.ok', { hasText: 'List' }).waitFor({ timeout: 30_000 });
    await row.locator('.out-text', { hasText: 'Here is what I found' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'fork-reload-panel-history');
  });
});

/** Resolves with the forks (oldest first) once `ready` holds, following the runtime's fork/state notifications. */
async function waitForForks(client: RuntimeClient, ready: (forks: ForkSummary[]) => boolean): Promise<ForkSummary[]> {
  const known = new Map<string, ForkSummary>();
  const sorted = () => [...known.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  let check = () => false;
  const done = new Promise<ForkSummary[]>(resolve => (check = () => ready(sorted()) && (resolve(sorted()), true)));
  // Subscribed before listing, so no change falls between the two.
  const subscription = onNotification(client.endpoint, forkState, ({ fork }) => {
    known.set(fork.id, fork);
    check();
  });
  for (const fork of (await sendRequest(client.endpoint, forkList, {})).forks) if (!known.has(fork.id)) known.set(fork.id, fork);
  check();
  try {
    return await done;
  } finally {
    subscription.dispose();
  }
}

function runtimePidOf(storeDir: string): number {
  return (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
}
