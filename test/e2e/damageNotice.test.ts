// A fork whose transcript was damaged on disk while no runtime ran (its tool_results line cut, as the
// robustness probe did): after a reload the runtime that loads it closes what the damage left open, and the
// fork's row in the Forks view says which line was damaged and what was done; so does the chat's conversation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import { sendRequest } from '../../src/common/protocol/endpoint';
import type { ForkSummary } from '../../src/common/forks';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { repoRoot } from '../../scripts/e2e/tools';
import { openForksView, rowOf } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, widenChat } from './workbenchUi';

const DIRECTIVE = 'list the files and read README.md';
const SLASH_FORK = `@fork /fork ${DIRECTIVE}`;

describe('Forks view: a damaged fork transcript is named on its row (code-server + chromium)', function () {
  // Two chat turns, a fork, a kill and a reload with the extension's activation: minutes on a loaded machine.
  this.timeout(360_000);
  const run = uiRun('damage', { stack: { streamDelayMs: 20 } });

  it('after a kill, a damaged line and a reload, the row says which line was damaged and what was done', async () => {
    const page = run.page;
    const runtimeScript = path.join(repoRoot(), 'dist', 'runtime.js');
    await openChat(page);
    await widenChat(page, 560);
    await page.locator('.interactive-input-part', { hasText: 'claude' }).first().waitFor({ timeout: 60_000 });
    await sendInChat(page, '@fork hello');
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
    await sendInChat(page, SLASH_FORK);
    await page.locator('.interactive-response', { hasText: 'Started fork' }).first().waitFor({ timeout: 60_000 });

    // Its own client, closed before the kill below (uiRun's stays open to the end).
    const observer = await connectRpc(await connectOrStart({ storeDir: run.stack.storeDir, runtimeScript }), 'e2e-observer');
    let started: ForkSummary;
    try {
      [started] = (await sendRequest(observer.endpoint, forkList, {})).forks;
      assert.equal((await sendRequest(observer.endpoint, forkWait, { forkId: started.id })).state, 'completed');
    } finally {
      await observer.close();
    }

    // The runtime dies (SIGKILL: nothing is flushed or tidied), then the fork's tool_results line is cut.
    const pid = (JSON.parse(fs.readFileSync(runtimeInfoPath(run.stack.storeDir), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await new Promise(resolve => setImmediate(resolve));
    const file = path.join(run.stack.storeDir, 'sessions', `${started.id}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex(line => line.includes('"kind":"tool_results"'));
    assert.ok(index > 0, 'the fork called a tool');
    lines[index] = lines[index].slice(0, 200) + '\u0000garbage{{';
    fs.writeFileSync(file, lines.join('\n'));
    // And in the chat a request record (what the cache explorer keeps), which leaves no exchange open.
    const chatFile = path.join(run.stack.storeDir, 'sessions', `${started.parentSessionId}.jsonl`);
    const chatLines = fs.readFileSync(chatFile, 'utf8').split('\n');
    const chatIndex = chatLines.findIndex(line => line.startsWith('{"type":"request"'));
    assert.ok(chatIndex > 0, 'the chat recorded its request');
    chatLines[chatIndex] = chatLines[chatIndex].slice(0, 50) + '{{garbage';
    fs.writeFileSync(chatFile, chatLines.join('\n'));

    // The chat's answer restored after the reload is the one VS Code saved (chatStore.ts).
    await run.reload({ lastMessage: SLASH_FORK });
    // The extension is active again once its models are in the chat's picker (its commands come with it).
    await page.locator('.interactive-input-part', { hasText: 'claude' }).first().waitFor({ timeout: 90_000 });
    const panel = await openForksView(page);
    const notice = rowOf(panel, DIRECTIVE).locator('.damage-notice');
    await notice.waitFor({ timeout: 60_000 });
    const text = (await notice.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /This fork's transcript was damaged on disk\./);
    assert.match(text, new RegExp(`Line ${index + 1} of the transcript was damaged and its record is lost; 1 call\\(s\\) without a result got an error result so requests stay valid\\.`));
    assert.match(text, /fork-agents doctor --repair/);
    // Only the fork's own line was damaged (and closed on load); the chat's damaged line is a request record
    // outside what the fork inherits: the fork is as it ended, not failed for its history.
    assert.equal(await rowOf(panel, DIRECTIVE).first().getAttribute('data-state'), 'completed');
    await notice.scrollIntoViewIfNeeded();
    console.log(`      screenshot: ${await screenshot(page, 'damage-notice-fork-row')}`);

    // The panel's conversation is the chat's (the current chat survives the reload): its notice is above it.
    const chatNotice = panel.locator('[data-section="conversation"] > .damage-notice');
    await chatNotice.waitFor({ timeout: 60_000 });
    const chatText = (await chatNotice.innerText()).replace(/\s+/g, ' ');
    assert.match(chatText, /This chat's transcript was damaged on disk\./);
    assert.match(chatText, new RegExp(`Line ${chatIndex + 1} of the transcript was damaged and its record is lost \\(it left no tool call open\\)\\.`));
    await chatNotice.scrollIntoViewIfNeeded();
    console.log(`      screenshot: ${await screenshot(page, 'damage-notice-chat')}`);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
