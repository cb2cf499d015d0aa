// Driving the Forks view in the workbench (code-server + chromium): open it, run palette commands,
// find rows. Shared by the panel and reload UI checks.
import type { Frame, Locator, Page } from 'playwright-core';
import { runCommand, uiStep } from './workbenchUi';

/** Opens the view by its command and returns the webview's frame (nested iframes: found by content). */
export async function openForksView(page: Page): Promise<Frame> {
  await paletteCommand(page, 'Fork: Show Forks');
  return uiStep(page, 'the Forks view loading', () => forksViewFrame(page));
}

/** The Forks view's webview frame, once its content has rendered: each frame present or attached later is watched. */
export function forksViewFrame(page: Page, timeoutMs = 30_000): Promise<Frame> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      page.off('frameattached', watch);
      clearTimeout(deadline);
      outcome();
    };
    function watch(frame: Frame): void {
      // A frame that goes away rejects its wait; only the one that shows the view counts.
      frame.locator('#app .section').first().waitFor({ timeout: timeoutMs }).then(() => settle(() => resolve(frame)), () => undefined);
    }
    const deadline = setTimeout(() => settle(() => reject(new Error(`the Forks view did not load within ${timeoutMs / 1000} s`))), timeoutMs);
    page.on('frameattached', watch);
    for (const frame of page.frames()) if (!frame.isDetached()) watch(frame);
  });
}

/** Runs a palette command; with `nextTitle`, waits for the quick input that command opens and returns its input. */
export async function paletteCommand(page: Page, title: string, nextTitle?: string): Promise<Locator> {
  await runCommand(page, title, nextTitle ? { shows: page.locator('.quick-input-title', { hasText: nextTitle }) } : {});
  return page.locator('.quick-input-widget input');
}

/** A fork's row, by its directive. */
export function rowOf(frame: Frame, directive: string): Locator {
  return frame.locator('.fork').filter({ has: frame.locator('.fork-directive', { hasText: directive }) });
}

export async function forkIds(frame: Frame): Promise<(string | null)[]> {
  const rows = frame.locator('.fork');
  const ids: (string | null)[] = [];
  for (let i = 0, n = await rows.count(); i < n; i++) ids.push(await rows.nth(i).getAttribute('data-fork-id'));
  return ids;
}

/** Widens the primary side bar (where the Forks view lives) by dragging its sash. */
export async function widenSideBar(page: Page, width: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box || box.width >= width) return;
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x + 1, y);
  await page.mouse.down();
  await page.mouse.move(x + (width - box.width), y, { steps: 8 });
  await page.mouse.up();
  // Off the sash, or its highlight stays in every screenshot.
  await page.mouse.move(x + width / 2, box.y + 4);
}
