// Driving the VS Code workbench in chromium: command palette, Chat view, screenshots.
// Selectors are the ones verified in ../shared/vscode-e2e/ui-notes.md.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { repoRoot } from '../../scripts/e2e/tools';
import { briefError, onScreen, STEP_FAILURE, stepFailure } from './uiDiagnostics';

export const RESULTS_DIR = path.join(repoRoot(), 'test-results');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export interface PaletteOptions {
  /** Shows once the command ran (by default the palette closing says so), e.g. the command's own quick pick. */
  shows?: Locator;
  showsTimeoutMs?: number;
  /** Running the command twice does no harm (it opens a view): when `shows` does not appear, the palette run is repeated. */
  repeatable?: boolean;
}

const PALETTE_ATTEMPTS = 3;

/**
 * Runs a command by its palette title (exact label match, so "Chat: Open Chat" is not "…(Agent)"). A row
 * that cannot be clicked (the palette closed when something else took the focus, or something covers it)
 * is logged with what was on screen, then Escape and the whole open-filter-click again, at most 3 times.
 * A click that landed is not repeated unless the command is `repeatable`: it may have run.
 */
export async function runCommand(page: Page, title: string, options: PaletteOptions = {}): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row').filter({
    has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
  });
  const what = `palette command "${title}"`;
  for (let attempt = 1; ; attempt++) {
    const last = attempt === PALETTE_ATTEMPTS;
    try {
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill(`>${title}`, { timeout: 8_000 });
      await row.first().click({ timeout: last ? 15_000 : 8_000 });
    } catch (error) {
      if (last) throw await uiStepError(page, `${what}: its row was not clicked (${attempt} tries)`, error);
      await retryLater(page, `${what}: its row was not clicked`, error);
      continue;
    }
    const done = options.shows ?? input;
    try {
      await done.waitFor({ state: options.shows ? 'visible' : 'hidden', timeout: options.showsTimeoutMs ?? 15_000 });
      return;
    } catch (error) {
      const after = options.shows ? 'what it opens did not show' : 'the palette did not close';
      if (last || !options.repeatable) throw await uiStepError(page, `${what}: clicked, but ${after}`, error);
      await retryLater(page, `${what}: clicked, but ${after}`, error);
    }
  }
}

async function retryLater(page: Page, why: string, error: unknown): Promise<void> {
  console.log(`      (${why}: ${briefError(error)}; on screen: ${await onScreen(page)}; Escape, then again)`);
  await page.keyboard.press('Escape');
}

/** The error for a failed UI step: what was on screen and a screenshot taken now, in a few lines. */
export async function uiStepError(page: Page, what: string, error: unknown): Promise<Error> {
  const screen = await onScreen(page);
  const shot = await screenshot(page, `step-failed-${what.replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 60)}`).catch(() => '(no screenshot: the page did not answer)');
  return stepFailure(what, error, screen, shot);
}

/** Runs `step`; its failure is reported as a uiStepError naming `what` (one from a step inside passes through). */
export async function uiStep<T>(page: Page, what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof Error && error.name === STEP_FAILURE) throw error;
    throw await uiStepError(page, what, error);
  }
}

export function chatInput(page: Page): Locator {
  return page.locator('.interactive-input-part').first();
}

/**
 * Opens (and focuses) the Chat view by its command's test keybinding (scripts/e2e/codeServer.ts), which
 * needs no palette row to click; the palette if the key did not open it (the workbench had not read its
 * keybindings yet, say).
 */
export async function openChat(page: Page): Promise<void> {
  await page.keyboard.press(OPEN_CHAT_KEY);
  try {
    await chatInput(page).waitFor({ state: 'visible', timeout: 5_000 });
    return;
  } catch (error) {
    console.log(`      (${OPEN_CHAT_KEY} did not open the chat: ${briefError(error)}; the palette instead)`);
  }
  await runCommand(page, 'Chat: Open Chat', { shows: chatInput(page), showsTimeoutMs: 30_000, repeatable: true });
}

/** TEST_KEYBINDINGS' key of workbench.action.chat.open, in playwright's words. */
const OPEN_CHAT_KEY = 'Control+Shift+Alt+F12';

/** The model picker lists a provider's model a moment after activation; typing earlier starts a sign-in flow. */
export async function waitForModelInPicker(page: Page, modelName: string, timeoutMs = 60_000): Promise<void> {
  await uiStep(page, `the model picker showing ${modelName}`, () =>
    page.locator('.interactive-input-part', { hasText: modelName }).first().waitFor({ state: 'visible', timeout: timeoutMs }));
}

/**
 * Puts the keyboard focus in the chat input. A click, as a user gives it; but the input sits where
 * notification toasts show (bottom right), and playwright would wait out a toast's ~10 s on screen before
 * it lets the click through. Then the editor's own input element (the EditContext node, or the older
 * textarea) takes the focus directly.
 */
export async function focusChatInput(page: Page): Promise<void> {
  const editor = page.locator('.interactive-input-part .monaco-editor').first();
  try {
    await editor.click({ timeout: 1_500 });
  } catch {
    await editor.locator('.native-edit-context, textarea.inputarea').first().focus({ timeout: 15_000 });
  }
}

/**
 * Replaces the input's content (@fork is sticky, so after a response the input already starts with it)
 * and waits until the editor shows exactly `text`: on a busy machine the first keystrokes can land
 * before the editor has focus.
 */
export async function typeInChat(page: Page, text: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await focusChatInput(page);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text);
    try {
      await page.waitForFunction(INPUT_SHOWS, text, { timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw new Error(`the chat input shows "${await chatInputText(page)}", not "${text}": ${String(error)}`);
      console.log(`      (the chat input showed "${await chatInputText(page)}" instead of "${text}"; typing again)`);
    }
  }
}

/**
 * Sends what the input holds and waits until the chat lists the request. An Enter that an open
 * suggestion widget took is repeated; one that was taken (the input emptied) is never sent twice.
 */
export async function submitChat(page: Page): Promise<void> {
  const requests = page.locator('.interactive-request');
  const before = await requests.count();
  const typed = await chatInputText(page);
  for (let attempt = 1; ; attempt++) {
    if (await page.locator('.interactive-input-part .suggest-widget.visible').count()) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    try {
      // Taken: the request is listed, or the input no longer holds it (the chat's list drops requests
      // scrolled far out of view, so a count alone can stay the same in a narrow chat).
      const tail = typed.slice(-24);
      await Promise.any([
        requests.nth(before).waitFor({ state: 'attached', timeout: 15_000 }),
        page.waitForFunction(text => {
          const doc = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document;
          const input = doc.querySelector('.interactive-input-part .view-lines');
          return input !== null && !(input.textContent ?? '').replace(/\u00a0/g, ' ').includes(text);
        }, tail, { timeout: 15_000 }),
      ]);
      return;
    } catch (error) {
      if (attempt === 3 || (await chatInputText(page)) !== typed) throw new Error(`the chat did not list the request "${typed}": ${String(error)}`);
      console.log(`      (the chat did not take Enter for "${typed}"; pressing it again)`);
    }
  }
}

/** Types into the chat input and sends it. */
export async function sendInChat(page: Page, text: string): Promise<void> {
  const requests = page.locator('.interactive-request');
  for (let attempt = 1; ; attempt++) {
    const before = await requests.count();
    await typeInChat(page, text);
    await submitChat(page);
    // A chat that listed no request yet has scrolled nothing out of view: its first request is listed at
    // once when VS Code takes it. Seen once in a window just opened: the input emptied, nothing was listed,
    // and the extension got no request; it is sent again then (never when anything was listed).
    if (before > 0 || attempt === 2) return;
    const listed = await requests.first().waitFor({ state: 'attached', timeout: 30_000 }).then(() => true, () => false);
    if (listed) return;
    console.log(`      (the chat emptied its input for "${text}" and listed no request; sending it again)`);
  }
}

/** Runs in the page: the chat input's text (spaces render as no-break spaces) equals `expected`. */
const INPUT_SHOWS = (expected: string): boolean => {
  // This project's Node tsconfig has no DOM lib: the page's document, typed as much as used.
  const doc = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document;
  return (doc.querySelector('.interactive-input-part .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ').trim() === expected.trim();
};

async function chatInputText(page: Page): Promise<string> {
  const raw = await page.locator('.interactive-input-part .view-lines').first().textContent().catch(() => '');
  return (raw ?? '').replace(/\u00a0/g, ' ').trim();
}

export function lastResponse(page: Page): Locator {
  return page.locator('.interactive-response').last();
}

/** The small "Fork from here" link a finished answer ends with (it appears when the turn is over). */
export function forkFromHere(response: Locator): Locator {
  return response.getByRole('link', { name: /Fork from here/ });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Widens the secondary side bar (the Chat view) by dragging its sash, so screenshots are legible. */
export async function widenChat(page: Page, width: number): Promise<void> {
  const bar = page.locator('.part.auxiliarybar');
  const box = await bar.boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x - (width - box.width), y, { steps: 8 });
  await page.mouse.up();
}

// Runs in the page; a string because this project's tsconfig has no DOM lib (the page is not our code).
// Reports each new line of the last chat response to the test as it appears.
const WATCH_LINES = `(() => {
  if (window.__forkWatching) return;
  window.__forkWatching = true;
  const seen = new Set();
  const capture = () => {
    const responses = document.querySelectorAll('.interactive-response');
    const last = responses[responses.length - 1];
    if (!last) return;
    for (const raw of last.innerText.split('\\n')) {
      const line = raw.trim();
      if (line && !seen.has(line)) {
        seen.add(line);
        window.__forkLine(line);
      }
    }
  };
  new MutationObserver(capture).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

/**
 * Calls `onLine` for every line the last chat response shows while it streams, and returns them all.
 * Tool progress ("Read README.md") is replaced as soon as the model's next output arrives, too briefly to
 * poll for, so a MutationObserver in the page reports it the moment it renders.
 */
export async function watchResponseLines(page: Page, onLine: (line: string) => void = () => undefined): Promise<string[]> {
  const lines: string[] = [];
  await page.exposeFunction('__forkLine', (line: string) => {
    lines.push(line);
    onLine(line);
  });
  await page.evaluate(WATCH_LINES);
  return lines;
}
