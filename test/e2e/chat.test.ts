// UI checks in a real VS Code workbench (code-server + chromium): a user types @fork in the Chat view and
// sees tool progress and a streamed answer; with a key the API rejects, a clear error. Screenshots of each
// step go to test-results/ (look at them: a green run can still show a broken page).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkbench } from '../../scripts/e2e/browser';
import type { Workbench } from '../../scripts/e2e/browser';
import { startStack } from '../../scripts/e2e/stack';
import type { Stack } from '../../scripts/e2e/stack';
import { repoRoot, requireE2eTools } from '../../scripts/e2e/tools';
import {
  forkFromHere,
  lastResponse,
  openChat,
  RESULTS_DIR,
  screenshot,
  sendInChat,
  submitChat,
  typeInChat,
  waitForModelInPicker,
  watchResponseLines,
  widenChat,
} from './workbenchUi';
import { forksViewFrame } from './forksViewUi';

const PROMPT = '@fork list the files and read README.md';

/** The Chat view names the model by its id: the `fork.model` setting's default. */
function defaultModel(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  return String(manifest.contributes.configuration.properties['fork.model'].default);
}

describe('Chat view UI (code-server + chromium)', function () {
  this.timeout(120_000);
  let stack: Stack | undefined;
  let workbench: Workbench | undefined;
  let failed = false;
  // Set once the Chat view offers our model: later checks fail fast (pointing at the first failure)
  // instead of each waiting out its own timeout.
  let modelListed = false;

  before(async function () {
    this.timeout(180_000);
    const tools = requireE2eTools();
    // A pause between SSE events keeps each streaming state on screen long enough to see and capture.
    stack = await startStack({ tools, extension: 'install', fake: true, streamDelayMs: 120, label: 'ui' });
    workbench = await openWorkbench({
      chromium: tools.chromium,
      runDir: stack.runDir,
      url: stack.codeServer.workbenchUrl(stack.workspace.workspaceFile),
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    failed = true;
    const name = `ui-failed-${(this.currentTest.title || 'test').replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
    console.log(`      screenshot of the failure: ${await screenshot(workbench.page, name)}`);
  });

  after(async function () {
    this.timeout(30_000);
    if (failed && stack) console.log(`      logs: ${path.join(RESULTS_DIR, 'logs', 'ui')} (${stack.collectLogs(path.join(RESULTS_DIR, 'logs', 'ui')).length} files)`);
    await workbench?.close();
    await stack?.stop();
  });

  it('lists the fork-agents model in the Chat view', async () => {
    const page = workbench!.page;
    await openChat(page);
    await widenChat(page, 560);
    await waitForModelInPicker(page, defaultModel());
    await screenshot(page, 'chat-open');
    modelListed = true;
  });

  it('streams an answer built from list_files and read_file', async () => {
    assert.ok(modelListed, 'the Chat view never listed the fork-agents model (see the first failure)');
    const page = workbench!.page;
    await typeInChat(page, PROMPT);
    await screenshot(page, 'chat-typed');
    // The first tool progress line is captured the moment it renders (it lasts only until the model's
    // next output), then the answer streaming in, then the finished turn.
    let progressShot: Promise<string> | undefined;
    const seen = await watchResponseLines(page, line => {
      if (!progressShot && /^(List|Read) /.test(line)) progressShot = screenshot(page, 'chat-tool-progress');
    });
    await submitChat(page);

    const response = lastResponse(page);
    await response.filter({ hasText: 'Here is what I found' }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-streaming');
    // The Fork from here link is added when the turn has finished.
    await forkFromHere(response).waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-answer');
    await progressShot;

    const text = await response.innerText();
    for (const expected of ['src/greet.js', 'src/math.js', 'README.md', 'Greeter', 'A tiny sample project']) {
      assert.ok(text.includes(expected), `the answer shows "${expected}":\n${text}`);
    }
    assert.ok(seen.some(line => line.startsWith('List ')), `list_files progress was shown; lines seen:\n${seen.join('\n')}`);
    assert.ok(seen.includes('Read README.md'), `read_file progress was shown; lines seen:\n${seen.join('\n')}`);
  });

  it('says clearly when the API key is rejected', async () => {
    assert.ok(modelListed, 'the Chat view never listed the fork-agents model (see the first failure)');
    const page = workbench!.page;
    // Same endpoint, different key: the extension's key is now one the server rejects (HTTP 401).
    await stack!.restartFake('sk-ant-a-key-the-extension-does-not-have');
    await sendInChat(page, '@fork read README.md');
    const error = page.locator('.interactive-response', { hasText: 'rejected the API key' });
    await error.waitFor({ timeout: 60_000 });
    await screenshot(page, 'chat-bad-key');
    const text = await error.last().innerText();
    assert.match(text, /Fork: Set Anthropic API Key/);
    assert.ok(await error.last().getByRole('button', { name: 'Set API Key' }).isVisible(), 'the error offers Set API Key');
  });

  it('has a Show Forks button in the Chat view\'s title that opens the Forks view', async () => {
    const page = workbench!.page;
    const button = page.locator('.part.auxiliarybar .title-actions, .part.auxiliarybar .pane-header .actions').getByRole('button', { name: /Show Forks/ });
    await button.first().click({ timeout: 30_000 });
    const panel = await forksViewFrame(page);
    await panel.locator('.section', { hasText: 'Forks' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'chat-title-show-forks');
  });
});
