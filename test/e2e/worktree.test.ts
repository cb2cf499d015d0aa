// Worktree forks as workspace roots in a real VS Code workbench (code-server + chromium):
// a fork started from the chat works in its
// own git worktree, which appears in the Explorer as a workspace root named after the fork; its changes
// are reviewed in the multi-diff editor; "Fork: Discard Fork Worktree" (palette, modal) removes the root,
// the worktree and the branch. Windows opened on the plain folder (single-folder) ask once: "Add to This
// Window" reloads the page (code-server drops the root again) and the fork survives the reload and
// finishes; "Save Workspace As…" re-opens the window as a workspace that has the fork's root.
// Screenshots: test-results/worktree-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { ForkSummary } from '../../src/common/forks';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkWait } from '../../src/common/protocol/forks';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { uiRun } from './uiRun';
import type { UiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';
import {
  addWorktreeContributions, explorerRoot, Gate, gitBranches, gitWorktrees, runCommandAndPick, showExplorer, worktreeResponder,
} from './worktreeSupport';

/**
 * The run of one window: the scripted fork writes files without asking (auto-edit), and these checks
 * follow a root from a fork's start (the tidy-workspace check covers onWrite, the default).
 * `folder`: open the plain folder (a single-folder window) instead of the .code-workspace file.
 */
function worktreeRun(label: string, folder = false): { run: UiRun; gate: Gate } {
  const gate = new Gate();
  const run = uiRun(label, {
    fake: { models: 'none', responder: worktreeResponder(() => gate), streamDelayMs: 40 },
    stack: { userSettings: { 'fork.approvalMode': 'auto-edit', 'fork.worktree.addToWorkspace': 'always' } },
    prepare: ({ stack }) => {
      const added = addWorktreeContributions(stack.codeServer.extensionsDir);
      if (added.length > 0) console.log(`      (package.json lacks ${added.join(', ')}: added to the installed copy for this run)`);
    },
    url: folder ? stack => `${stack.codeServer.origin}/?folder=${encodeURIComponent(stack.workspace.folder)}` : undefined,
    release: () => gate.release(),
  });
  return { run, gate };
}

/** Chats once (a fork needs a conversation), then starts a fork with the chat's /fork command. */
async function startForkFromChat(page: Page, run: UiRun, directive: string): Promise<ForkSummary> {
  await openChat(page);
  await waitForModelInPicker(page, 'claude-sonnet-5-5');
  await sendInChat(page, '@fork hello');
  await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
  await sendInChat(page, `@fork /fork ${directive}`);
  await page.locator('.interactive-response', { hasText: 'Started fork' }).waitFor({ timeout: 60_000 });
  const { forks } = await sendRequest((await run.observer()).endpoint, forkList, {});
  assert.equal(forks.length, 1);
  return forks[0];
}

function runtimePidOf(storeDir: string): number {
  return (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
}

describe('Worktree forks as workspace roots (code-server + chromium)', function () {
  this.timeout(180_000);
  const { run, gate } = worktreeRun('worktree');

  it('adds the fork\'s worktree as a root, reviews its changes, and discard removes root, worktree and branch', async () => {
    const page = run.page;
    const repo = run.stack.workspace.folder;
    const fork = await startForkFromChat(page, run, 'write NOTES.md');
    assert.equal(fork.isolation, 'worktree', 'a fork in a git repository gets a worktree by default');
    const worktree = fork.worktree!;
    assert.ok(fs.existsSync(worktree.path));
    assert.ok(gitWorktrees(repo).includes(worktree.path));

    // The root appears while the fork is still running (its report waits for the gate).
    await showExplorer(page);
    const root = explorerRoot(page, `Fork: ${fork.name}`);
    await root.waitFor({ timeout: 30_000 });
    const workspaceFile = JSON.parse(fs.readFileSync(run.stack.workspace.workspaceFile, 'utf8')) as { folders: { path: string; name?: string }[] };
    // VS Code writes the folder relative to the .code-workspace file.
    const written = workspaceFile.folders.at(-1)!;
    assert.equal(written.name, `Fork: ${fork.name}`);
    assert.equal(path.resolve(path.dirname(run.stack.workspace.workspaceFile), written.path), worktree.path);
    await screenshot(page, 'worktree-root');

    gate.release();
    const done = await sendRequest((await run.observer()).endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.equal(fs.readFileSync(path.join(worktree.path, 'NOTES.md'), 'utf8'), 'Notes written by a fork in its own worktree.\n');
    assert.equal(fs.existsSync(path.join(repo, 'NOTES.md')), false, 'the main working tree is untouched');

    // The finished notification offers Review: the multi-diff editor shows the fork's file.
    const toast = page.locator('.notification-toast', { hasText: `Fork "${fork.name}" completed.` });
    await toast.getByRole('button', { name: 'Review' }).click({ timeout: 60_000 });
    await page.locator('.editor-group-container .tab', { hasText: `Fork changes: ${fork.name}` }).waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container', { hasText: 'Notes written by a fork in its own worktree.' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'worktree-review');

    // Apply through the palette while the main tree has its own NOTES.md: nothing is overwritten; the
    // user is offered conflict markers, and the file opens with both versions in it.
    fs.writeFileSync(path.join(repo, 'NOTES.md'), 'My own notes.\n');
    await runCommandAndPick(page, 'Fork: Apply Fork Changes', 'Which fork?', fork.name);
    const conflict = page.locator('.notification-toast', { hasText: 'Not applied' });
    await conflict.waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(repo, 'NOTES.md'), 'utf8'), 'My own notes.\n', 'nothing written on a conflict');
    await screenshot(page, 'worktree-apply-conflict');
    await conflict.getByRole('button', { name: 'Apply with Conflict Markers' }).click();
    await page.locator('.editor-group-container .tab', { hasText: 'NOTES.md' }).filter({ hasNotText: 'Fork changes' }).waitFor({ timeout: 30_000 });
    const marked = fs.readFileSync(path.join(repo, 'NOTES.md'), 'utf8');
    assert.match(marked, /^<<<<<<< [^\n]*\nMy own notes\.\n=======\nNotes written by a fork in its own worktree\.\n>>>>>>> /);
    await screenshot(page, 'worktree-apply-markers');

    // Discard through the palette: pick the fork, confirm the modal.
    await runCommandAndPick(page, 'Fork: Discard Fork Worktree', 'Which fork?', fork.name);
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.filter({ hasText: `Discard fork "${fork.name}"?` }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'worktree-discard-confirm');
    await dialog.getByRole('button', { name: 'Discard' }).click();
    await page.locator('.notification-toast', { hasText: `Discarded fork "${fork.name}"` }).waitFor({ timeout: 30_000 });
    await root.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(gitWorktrees(repo).includes(worktree.path), false, 'git worktree list no longer shows it');
    assert.equal(gitBranches(repo).includes(worktree.branch), false, 'its branch is deleted');
    assert.equal(fs.existsSync(worktree.path), false, 'its folder is gone');
    const after = (await sendRequest((await run.observer()).endpoint, forkList, {})).forks[0];
    assert.equal(after.worktree?.discarded, true);
    await screenshot(page, 'worktree-discarded');
  });
});

describe('A worktree fork in a single-folder window (code-server + chromium)', function () {
  this.timeout(180_000);
  const { run, gate } = worktreeRun('worktree-folder', true);

  it('asks once; "Add to This Window" reloads the window, and the fork survives the reload and finishes', async () => {
    const page = run.page;
    const fork = await startForkFromChat(page, run, 'write TODO.md');
    const runtimePid = runtimePidOf(run.stack.storeDir);
    const prompt = page.locator('.notification-toast', { hasText: 'works in its own git worktree' });
    await prompt.waitFor({ timeout: 30_000 });
    await screenshot(page, 'worktree-single-folder-prompt');

    let navigations = 0;
    page.on('framenavigated', frame => {
      if (frame === page.mainFrame()) navigations++;
    });
    const reloaded = page.waitForEvent('load', { timeout: 60_000 });
    await prompt.getByRole('button', { name: 'Add to This Window' }).click();
    await reloaded;
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    const during = (await sendRequest((await run.observer()).endpoint, forkList, {})).forks[0];
    assert.equal(during.state, 'running', 'the fork was still running when the window reloaded');

    gate.release();
    const done = await sendRequest((await run.observer()).endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
    assert.equal(runtimePidOf(run.stack.storeDir), runtimePid, 'the same runtime finished it: it survived, not revived');
    // The reloaded window's extension announces it, and it did not try to add the root again (no reload loop).
    await page.locator('.notification-toast', { hasText: `Fork "${fork.name}" completed.` }).waitFor({ timeout: 60_000 }).catch(async (error: Error) => {
      // CI shows only the end of the output: say what the window showed instead.
      const toasts = await page.locator('.notification-toast').allInnerTexts().catch(() => []);
      throw new Error(`${error.message.split('\n')[0]}\n(page loads: ${navigations}; toasts: ${JSON.stringify(toasts)})`);
    });
    assert.equal(navigations, 1, 'one reload');
    // What made it one: the fork's root was recorded on disk, beside the store, before the reload.
    const recorded = JSON.parse(fs.readFileSync(path.join(run.stack.storeDir, 'editor', 'worktree-roots.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(recorded['forkAgents.worktreeRoots.added'], [fork.id]);
    assert.equal(await page.locator('.notification-toast', { hasText: 'works in its own git worktree' }).count(), 0, 'asked once');
    await screenshot(page, 'worktree-single-folder-after-reload');
  });
});

describe('"Save Workspace As…" before adding a worktree root (code-server + chromium)', function () {
  this.timeout(180_000);
  const { run, gate } = worktreeRun('worktree-saveas', true);

  it('saves the window as a .code-workspace; the re-opened workspace gets the fork\'s root', async () => {
    const page = run.page;
    const fork = await startForkFromChat(page, run, 'write PLAN.md');
    const prompt = page.locator('.notification-toast', { hasText: 'works in its own git worktree' });
    await prompt.getByRole('button', { name: 'Save Workspace As…' }).click({ timeout: 30_000 });
    // code-server's own save dialog is a quick input holding a path.
    const saved = path.join(run.stack.runDir, 'saved.code-workspace');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    // It fills in its own suggestion a moment after it opens; typing earlier is overwritten.
    await page.waitForFunction(`document.querySelector('.quick-input-widget input')?.value.endsWith('.code-workspace')`, undefined, { timeout: 15_000 });
    await input.fill(saved);
    // The dialog checks the typed path against the remote file system before it accepts, and under load
    // ignores an OK that comes too early: accept until the window re-opens (bounded), as a user would retry.
    const reopened = page.waitForEvent('load', { timeout: 90_000 });
    let loaded = false;
    void reopened.then(() => (loaded = true), () => undefined);
    for (let attempt = 0; attempt < 6 && !loaded; attempt++) {
      const stillOpen = await input.isVisible().catch(() => false);
      if (!stillOpen) break;
      if ((await input.inputValue().catch(() => saved)) !== saved) await input.fill(saved);
      await page.locator('.quick-input-widget .monaco-button', { hasText: /^OK$/ }).click({ timeout: 5_000 }).catch(() => undefined);
      await Promise.race([reopened.catch(() => undefined), input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined)]);
    }
    await reopened;
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    assert.equal(new URL(page.url()).searchParams.get('workspace'), saved);

    await showExplorer(page);
    await explorerRoot(page, `Fork: ${fork.name}`).waitFor({ timeout: 30_000 });
    const folders = (JSON.parse(fs.readFileSync(saved, 'utf8')) as { folders: { path: string; name?: string }[] }).folders;
    assert.deepEqual(folders.map(f => path.resolve(path.dirname(saved), f.path)), [run.stack.workspace.folder, fork.worktree!.path]);
    await screenshot(page, 'worktree-saved-workspace');

    gate.release();
    const done = await sendRequest((await run.observer()).endpoint, forkWait, { forkId: fork.id });
    assert.equal(done.state, 'completed');
  });
});
