// The editor's fork notices in a real workbench (code-server + chromium), for forks started beside it with
// the CLI, as a user at a terminal would: a worktree fork that changed nothing is announced with Show Report
// only (nothing to review or apply); its report opens as a read-only document named after the fork, not a
// dirty "Untitled-1", and closes without a question; a tournament of two attempts raises one notice, once
// its verdict is in, naming the winner and each attempt, and no notice per attempt. The run's store path is
// too long for a socket, and where the per-user socket folder goes a symlink waits (as if someone else had
// made it): the runtime serves from a private folder of its own, and the editor says so.
// Screenshots: test-results/notices-*.png.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { uiRun } from './uiRun';
import { screenshot } from './workbenchUi';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { stopStoreRuntime } from '../runtime/cliRunner';
import { say } from '../runtime/script';

const execFileAsync = promisify(execFile);

const READER = 'read the README and say what it covers';
const TOURNAMENT = 'suggest a name for the project';

/** Every notification toast's text as it first renders (buttons and all), reported by the page itself. */
const WATCH_TOASTS = `(() => {
  const seen = new Set();
  new MutationObserver(() => {
    for (const toast of document.querySelectorAll('.notification-toast')) {
      const text = (toast.querySelector('.notification-list-item-message')?.textContent ?? '').trim();
      if (text && !seen.has(text)) {
        seen.add(text);
        window.__forkToast(text);
      }
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

async function watchToasts(page: Page): Promise<string[]> {
  const texts: string[] = [];
  await page.exposeFunction('__forkToast', (text: string) => void texts.push(text));
  await page.evaluate(WATCH_TOASTS);
  return texts;
}

describe('Fork notices: what applies, read-only reports, one per tournament (code-server + chromium)', function () {
  this.timeout(240_000);
  let base = '';
  let store = '';
  const run = uiRun('notices', () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-notices-'));
    const tmp = path.join(base, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o700 });
    // Too long for a socket path (over 100 bytes): the socket goes to <tmp>/fork-agents-<uid>, held here by a symlink.
    store = path.join(base, `store-${'s'.repeat(100)}`);
    fs.mkdirSync(store, { mode: 0o700 });
    fs.symlinkSync(base, path.join(tmp, `fork-agents-${process.getuid!()}`));
    return { stack: { env: { FORK_AGENTS_STORE: store, TMPDIR: tmp, XDG_RUNTIME_DIR: '' } }, fake: {
      responder: req => {
        if (req.rawBody.includes('You are the judge of a fork tournament')) return say('WINNER: 2\nREASON: its name is shorter');
        const last = JSON.stringify(req.body.messages.at(-1).content);
        if (last.includes(TOURNAMENT)) return say('How about "Forklift"?');
        if (last.includes(READER)) return say('The README covers the sample project; nothing needs changing.');
        return say('Hello.');
      },
    } };
  });
  let toasts: string[] = [];
  let sessionId = '';

  /** The CLI on the editor's store, with the editor's environment (its temp folder, the fake model). */
  async function cli(...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync(process.execPath, [path.join(run.stack.root, 'dist', 'cli.js'), ...args, '--store', store], { env: { ...process.env, ...run.stack.extensionEnv } });
    return stdout;
  }

  before(async () => {
    toasts = await watchToasts(run.page);
    sessionId = JSON.parse((await cli('chat', '--cwd', run.stack.workspace.folder, '--json', 'hello')).trim().split('\n').at(-1)!).sessionId;
  });
  // The stack stops the runtimes of its own store; this one's store is elsewhere.
  // It exits once SIGTERM's cleanup is over: removing its folders earlier races its last writes there
  // (ENOTEMPTY under load).
  after(async function () {
    this.timeout(30_000);
    const pid = runtimePid(store);
    stopStoreRuntime(store);
    const deadline = Date.now() + 20_000;
    while (pid !== undefined && alive(pid) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100));
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  });

  it('a worktree fork that changed nothing offers Show Report only; the report is read-only and closes without asking to save', async () => {
    const page = run.page;
    await cli('fork', '--session', sessionId, '--isolation', 'worktree', READER);
    const toast = page.locator('.notification-toast', { hasText: 'completed.' }).filter({ hasText: 'read the README' });
    const show = toast.getByRole('button', { name: 'Show Report' });
    await show.waitFor({ timeout: 90_000 });
    // Read now, asserted after the report's checks: the click takes the toast away.
    const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map(t => t.trim()).filter(Boolean);
    await screenshot(page, 'notices-fork-no-changes');

    await show.click();
    const tab = page.locator('.editor-group-container .tab', { hasText: '(report).md' });
    await tab.waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container .view-lines', { hasText: 'nothing needs changing' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.editor-group-container .tab', { hasText: 'Untitled' }).count(), 0, 'no untitled editor');
    assert.doesNotMatch((await tab.getAttribute('class')) ?? '', /\bdirty\b/, 'the report tab is not dirty');
    await screenshot(page, 'notices-report-read-only');
    await tab.hover();
    await tab.getByRole('button', { name: /^Close/ }).click();
    // An unsaved document would keep its tab and ask "Do you want to save…?"; a read-only one just closes.
    await tab.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no save question');
    assert.deepEqual(buttons, ['Show Report'], 'nothing to review or apply');
  });

  it('a tournament of two attempts raises one notice with its verdict and each attempt, none per attempt', async () => {
    const page = run.page;
    await cli('fork', '--session', sessionId, '--attempts', '2', '--verify', '', TOURNAMENT);
    const notice = page.locator('.notification-toast', { hasText: 'Tournament “suggest a name for the project” (2 attempts)' });
    await notice.waitFor({ timeout: 120_000 });
    const text = (await notice.locator('.notification-list-item-message').innerText()).trim();
    assert.match(text, /\(2 attempts\): attempt 2 won\. Attempt 1 completed, no changes; attempt 2 completed, no changes\./);
    assert.deepEqual((await notice.locator('.monaco-button').allInnerTexts()).map(t => t.trim()).filter(Boolean), ['Show Forks', 'Show Winner\'s Report']);
    await screenshot(page, 'notices-tournament');
    const aboutIt = toasts.filter(t => t.includes('suggest a name'));
    assert.deepEqual(aboutIt, [text], `one notice for the tournament; all toasts: ${JSON.stringify(toasts)}`);
  });

  it('says when the runtime serves from a private socket folder of its own, because the predictable one is not this user\'s', async () => {
    const page = run.page;
    // Last: the notification centre hides the toasts the other checks look at. The warning has no buttons,
    // so its toast goes after a few seconds; the centre keeps it.
    await page.locator('[id="status.notifications"]').click();
    await page.locator('.notifications-center.visible').waitFor({ timeout: 15_000 });
    const warning = page.locator('.notifications-center .notification-list-item', { hasText: 'The runtime serves from a private folder of its own instead' });
    await warning.waitFor({ timeout: 30_000 });
    assert.match(await warning.innerText(), /Fork Agents: .*fork-agents-\d+ is not a folder \(a symlink or a file\); refusing to use it\./s);
    await screenshot(page, 'notices-socket-fallback');
  });
});

function runtimePid(store: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(runtimeInfoPath(store), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined; // no runtime was started
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
