// UI check of the Forks panel's MCP servers and fork model in a real workbench (code-server + chromium):
// the current chat's MCP
// server (the real server-everything from npm, configured in the user's fork.mcp.servers) shows in the
// Forks view with its state and tool count and turns to "failed" with its reason when its process dies;
// the New fork form offers the Chat view's models with the chat's own preselected, says that another
// model starts with a cold cache, and a fork started with it names that model in its requests.
// Screenshots go to test-results/fork-model-*.png.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { panelResponder } from '../fakes/panelScript';
import { openForksView, rowOf, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';

const EVERYTHING = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// The Chat view picks one of the two by its own rule; the chat's model is whichever its requests named.
const MODELS = [{ id: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5' }, { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5' }];

describe('Forks panel: MCP servers and a fork\'s model (code-server + chromium)', function () {
  this.timeout(120_000);
  const run = uiRun('fork-model', {
    fake: { responder: panelResponder(), models: MODELS },
    // Application scope, so user settings: the user's own MCP server needs no workspace trust prompt.
    stack: {
      userSettings: {
        'fork.approvalMode': 'auto',
        'fork.mcp.servers': { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      },
    },
  });
  let panel: Frame;
  let chatReady = false;

  async function chat(page: Page, prompt: string, expected: string): Promise<void> {
    const before = await page.locator('.interactive-response').count();
    await sendInChat(page, prompt);
    await page.locator('.interactive-response').nth(before).waitFor({ timeout: 30_000 });
    await lastResponse(page).filter({ hasText: expected }).waitFor({ timeout: 60_000 });
  }

  it('shows the chat\'s MCP server running with its tools, then failed with the reason when it dies', async () => {
    const page = run.page;
    await openChat(page);
    await waitForModelInPicker(page, 'Claude ');
    await chat(page, '@fork list the files', 'Here is what I found');
    panel = await openForksView(page);
    await widenSideBar(page, 440);
    const server = panel.locator('.mcp-server[data-server="everything"]');
    await server.filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.match(await server.innerText(), /everything\s*running · \d+ tools/);
    // The chat's turn wrote to the store: the size line counts its session (not only after a fork ends).
    await panel.locator('.store-line', { hasText: /\(1 session, \d+ shared history segments?\)/ }).waitFor({ timeout: 30_000 });
    chatReady = true;
    await server.scrollIntoViewIfNeeded();
    await screenshot(page, 'fork-model-mcp-running');

    // The server's process dies: the runtime pushes mcp/state, the row says so without a reload.
    process.kill(serverPid(runtimePid(run.stack.storeDir)), 'SIGKILL');
    await panel.locator('.mcp-server[data-server="everything"][data-state="failed"]').waitFor({ timeout: 30_000 });
    assert.match(await server.locator('.mcp-error').innerText(), /the server stopped/);
    await server.scrollIntoViewIfNeeded();
    await screenshot(page, 'fork-model-mcp-failed');
  });

  it('preselects the chat\'s model, says another starts cold, and the fork asks that model', async () => {
    assert.ok(chatReady, 'needs the chat of the first check');
    const page = run.page;
    const chatModel = run.fake.requests.find(r => !r.rawBody.includes('<fork-boilerplate>') && r.body?.model)!.body.model as string;
    const [chat, other] = [MODELS.find(m => m.id === chatModel)!, MODELS.find(m => m.id !== chatModel)!];
    const [CHAT_MODEL, OTHER_MODEL] = [chat.id, other.id];
    const select = panel.locator('#fork-model');
    await select.locator(`option[value="${OTHER_MODEL}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await select.inputValue(), CHAT_MODEL, 'the chat\'s model is the default');
    const labels = (await select.locator('option').allInnerTexts()).map(t => t.trim());
    assert.deepEqual(labels, [`${chat.display_name} (${CHAT_MODEL}) — this chat's model`, `${other.display_name} (${OTHER_MODEL})`]);
    const note = panel.locator('#model-note');
    assert.match(await note.innerText(), /the conversation's model, so the fork reads its prompt cache/);
    await panel.locator('#directive').fill('tour on another model');
    await panel.locator('#isolation').selectOption('shared');
    await select.selectOption(OTHER_MODEL);
    await note.filter({ hasText: 'Cold cache' }).waitFor({ timeout: 5_000 });
    assert.match(await note.innerText(), new RegExp(`Cold cache: ${OTHER_MODEL} cannot read the prompt cache of ${CHAT_MODEL}.*costs more`));
    await panel.locator('.new-fork').scrollIntoViewIfNeeded();
    await screenshot(page, 'fork-model-cold-note');

    await panel.getByRole('button', { name: 'Start fork' }).click();
    const row = rowOf(panel, 'tour on another model');
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.locator('.fork-meta').innerText(), new RegExp(`· shared · ${OTHER_MODEL} \\(cold cache\\) ·`));
    await row.locator('.report', { hasText: 'Scope' }).waitFor({ timeout: 60_000 });
    const sent = run.fake.requests.filter(r => r.rawBody.includes('DIRECTIVE: tour on another model'));
    assert.ok(sent.length >= 2, `${sent.length} fork requests`);
    assert.deepEqual([...new Set(sent.map(r => r.body.model))], [OTHER_MODEL], 'every request of the fork names the chosen model');
    assert.equal(sent[0].usage?.cache_read_input_tokens, 0, 'its first request read nothing of the chat\'s cache');
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'fork-model-started');
  });
});

function runtimePid(storeDir: string): number {
  return (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
}

function serverPid(parent: number): number {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)], { encoding: 'utf8' });
  const line = out.split('\n').find(l => l.includes('server-everything'));
  assert.ok(line, `no server-everything child of the runtime ${parent}:\n${out}`);
  return Number(line.trim().split(/\s+/)[0]);
}
