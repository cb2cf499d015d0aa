// A fork tournament from the Forks panel in a real VS Code workbench (code-server + chromium): the New
// Fork form with Attempts 3 starts three worktree attempts (the demo model makes them differ), each runs
// the verify command, the Compare view shows them side by side with the verdict, and Apply winner lands
// the winner's file in the main tree; then a second tournament's hunks, ticked from two attempts, land
// together, and two ticked hunks that touch the same file are shown as a conflict with nothing written.
// Screenshots: test-results/tournament-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { openForksView, rowOf, widenSideBar } from './forksViewUi';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, sendInChat, waitForModelInPicker } from './workbenchUi';

describe('Fork tournament in the Forks panel (code-server + chromium)', function () {
  this.timeout(180_000);
  const run = uiRun('tournament', { stack: {
    streamDelayMs: 20,
    // The verify command is a user (application-scope) setting: it runs code.
    userSettings: { 'fork.approvalMode': 'auto', 'fork.tournament.verify': 'test -f NOTES.md' },
  } });

  it('starts 3 attempts from the form, compares them with their verify results, and applies the winner', async () => {
    const page = run.page;
    await openChat(page);
    await waitForModelInPicker(page, 'claude-sonnet-5-5');
    await sendInChat(page, '@fork hello');
    await forkFromHere(lastResponse(page)).waitFor({ timeout: 60_000 });
    const panel: Frame = await openForksView(page);
    await widenSideBar(page, 900);
    await panel.locator('#directive').fill('create NOTES.md with notes from a tournament');
    await panel.locator('#turns-all').check();
    await panel.locator('#fork-attempts').fill('3');
    await panel.locator('#attempts-note', { hasText: '3 attempts, each in its own worktree' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'tournament-form');
    await panel.getByRole('button', { name: 'Start fork' }).click();
    const attempts = panel.locator('.fork', { hasText: 'attempt' });
    await panel.locator('.fork[data-state="completed"] .fork-meta', { hasText: 'verify passed' }).nth(2).waitFor({ timeout: 120_000 });
    assert.equal(await attempts.count(), 3);

    const first = panel.locator('.fork', { hasText: 'attempt 1 of 3' });
    const compareButton = first.getByRole('button', { name: 'Compare the attempts side by side' });
    // The panel opens the first attempt it started; open it only when it is closed.
    if (!(await compareButton.isVisible())) await first.locator('.fork-toggle').click();
    await compareButton.click();
    const compare = panel.locator('.compare');
    await compare.locator('.verdict.has-winner').waitFor({ timeout: 60_000 });
    assert.equal(await compare.locator('.attempt').count(), 3);
    assert.equal(await compare.locator('.attempt .verify.pass').count(), 3);
    assert.match(await compare.locator('.verdict').innerText(), /the judge chose attempt 1/);
    assert.match(await compare.locator('.attempt.winner .attempt-changes').innerText(), /1 file \+1 −0/);
    await compare.scrollIntoViewIfNeeded();
    await screenshot(page, 'tournament-compare');

    await compare.getByRole('button', { name: 'What the second attempt changes against the first' }).click();
    await compare.locator('.attempt-diff', { hasText: '(another approach)' }).waitFor({ timeout: 30_000 });
    await compare.locator('.attempt.winner').getByRole('button', { name: 'Apply attempt 1 to the main working tree' }).click();
    await compare.locator('.compare-status', { hasText: 'Applied 1 file' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(run.stack.workspace.folder, 'NOTES.md'), 'utf8'), 'notes from a tournament\n');
    await screenshot(page, 'tournament-applied');
  });

  it('merges hunks ticked from two attempts into the main tree, and shows two ticked hunks of one file as a conflict', async () => {
    const page = run.page;
    const panel: Frame = await openForksView(page);
    // Three files per attempt (the demo adds lines to each in attempts 2 and 3): hunk 1 NOTES.md, 2 PLAN.md, 3 TODO.md.
    const directive = 'create NOTES.md with merged; create PLAN.md with plan; create TODO.md with todo';
    await panel.locator('#directive').fill(directive);
    await panel.locator('#turns-all').check();
    await panel.locator('#fork-attempts').fill('3');
    await panel.getByRole('button', { name: 'Start fork' }).click();
    const rows = rowOf(panel, directive);
    await rows.filter({ has: panel.locator('.fork-meta', { hasText: 'verify passed' }) }).and(panel.locator('.fork[data-state="completed"]')).nth(2).waitFor({ timeout: 120_000 });
    const first = rows.filter({ hasText: 'attempt 1 of 3' });
    const compareButton = first.getByRole('button', { name: 'Compare the attempts side by side' });
    if (!(await compareButton.isVisible())) await first.locator('.fork-toggle').click();
    await compareButton.click();
    const compare = panel.locator('.compare');
    await compare.locator('h3', { hasText: directive }).waitFor({ timeout: 30_000 });
    await compare.locator('.verdict.has-winner').waitFor({ timeout: 60_000 });
    assert.equal(await compare.locator('.attempt').nth(1).locator('.hunk').count(), 3);
    // Hunk text is shown as text: the second attempt's PLAN.md adds the demo's variant line.
    assert.match(await compare.locator('.attempt').nth(1).locator('.hunk[data-hunk="2"] .hunk-body').innerText(), /\+plan\n\+\(another approach\)/);

    const main = (file: string) => path.join(run.stack.workspace.folder, file);
    await compare.locator('#hunk-1-2').check();
    await compare.locator('#hunk-2-3').check();
    await compare.locator('.hunk-count', { hasText: '2 hunks from 2 attempts chosen.' }).waitFor({ timeout: 5_000 });
    await compare.scrollIntoViewIfNeeded();
    await screenshot(page, 'tournament-hunks-chosen');
    await compare.getByRole('button', { name: 'Apply the ticked hunks of every attempt to the main working tree as one result' }).click();
    await compare.locator('.compare-status', { hasText: 'Applied 2 hunks to 2 files' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(main('PLAN.md'), 'utf8'), 'plan\n', 'attempt 1\'s PLAN.md');
    assert.equal(fs.readFileSync(main('TODO.md'), 'utf8'), 'todo\n(another approach)\n', 'attempt 2\'s TODO.md');
    await screenshot(page, 'tournament-hunks-applied');

    await compare.getByRole('button', { name: 'Untick every hunk' }).click();
    await compare.locator('#hunk-2-1').check();
    await compare.locator('#hunk-3-1').check();
    await compare.getByRole('button', { name: 'Apply the ticked hunks of every attempt to the main working tree as one result' }).click();
    const conflicts = compare.locator('.hunk-conflicts');
    await conflicts.locator('li', { hasText: 'NOTES.md: attempt 2 hunk 1 and attempt 3 hunk 1' }).waitFor({ timeout: 30_000 });
    assert.match(await conflicts.innerText(), /nothing was written/);
    assert.deepEqual(await compare.locator('.hunk.conflict').evaluateAll(els => els.map(e => `${e.closest('.attempt')!.getAttribute('data-attempt')}:${e.getAttribute('data-hunk')}`)), ['2:1', '3:1']);
    assert.equal(fs.existsSync(main('NOTES.md')) ? fs.readFileSync(main('NOTES.md'), 'utf8') : '', 'notes from a tournament\n', 'NOTES.md as the first test applied it');
    await conflicts.scrollIntoViewIfNeeded();
    await screenshot(page, 'tournament-hunks-conflict');
  });
});
