// Driving the Chat view's context and model controls the way a user does (code-server + chromium):
// a `#` file reference and `#selection` picked from the input's suggestions, the model picker, a new chat, and the MCP trust notification.
import type { Locator, Page } from 'playwright-core';
import { chatInput, focusChatInput, runCommand } from './workbenchUi';

/**
 * Starts a new chat (the previous one would continue its session, which keeps its model and tools) with the
 * Chat view's New Chat key (Ctrl+L in the chat input; the palette's entry needs the chat focused too).
 */
export async function newChat(page: Page): Promise<void> {
  const requests = page.locator('.interactive-request');
  await focusChatInput(page);
  await page.keyboard.press('Control+L');
  await requests.first().waitFor({ state: 'detached', timeout: 30_000 });
  await chatInput(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/**
 * Types ` #<word>` at the end of the input and accepts the suggestion whose label holds `label`: for a
 * file's name that inserts a `#file:<name>` reference, for `#selection` the active editor's selection
 * (`#file:<name>:<from>-<to>`); the request carries either in `request.references`.
 */
async function acceptReference(page: Page, word: string, label: string, inserted: string): Promise<void> {
  await focusChatInput(page);
  await page.keyboard.press('End');
  await page.keyboard.type(` #${word}`);
  const suggestion = page.locator('.interactive-input-part .suggest-widget.visible .monaco-list-row, .suggest-widget.visible .monaco-list-row', { hasText: label });
  // Workspace file search can answer after the widget first opened (then the widget never lists the
  // file): ask for suggestions again every few seconds rather than waiting one long timeout out.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await suggestion.first().waitFor({ state: 'visible', timeout: 3_000 });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await page.keyboard.press('Control+Space');
    }
  }
  await suggestion.first().click();
  await page.locator('.interactive-input-part .view-lines', { hasText: inserted }).first().waitFor({ timeout: 15_000 });
}

/** A `#file` reference to a workspace file, picked from the input's `#` suggestions. */
export async function attachFileInChat(page: Page, fileName: string): Promise<void> {
  await acceptReference(page, fileName.replace(/\.[^.]*$/, ''), fileName, `#file:${fileName}`);
}

/** `#selection`: the active editor's selection, picked from the input's `#` suggestions. */
export async function attachSelectionInChat(page: Page, fileName: string): Promise<void> {
  await acceptReference(page, 'selection', fileName, `#file:${fileName}:`);
}

/** Opens `file` by Quick Open and selects whole lines `from`–`to` (1-based). */
export async function selectLinesInEditor(page: Page, file: string, from: number, to: number): Promise<void> {
  await page.keyboard.press('ControlOrMeta+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(file);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: file.split('/').pop()! }).first().click({ timeout: 15_000 });
  const tab = page.locator('.tabs-container .tab.active', { hasText: file.split('/').pop()! });
  await tab.waitFor({ timeout: 15_000 });
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+Home');
  for (let line = 1; line < from; line++) await page.keyboard.press('ArrowDown');
  for (let line = from; line < to; line++) await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  await page.locator('.editor-group-container.active .monaco-editor .selected-text').first().waitFor({ timeout: 10_000 });
}

/** The model the Chat view's picker shows as chosen. */
export async function pickedModel(page: Page): Promise<string> {
  return (await modelPicker(page).innerText()).trim();
}

/**
 * Waits until the picker shows `modelName` as chosen. It shows "Models" and "Auto" while the workbench
 * resolves the providers, then the provider's first model; a list given before the endpoint's models could
 * be had names fork.model by its id until the extension's retry brings them (src/host/lm/listRetry.ts).
 */
export async function waitForPickedModel(page: Page, modelName: string, timeoutMs = 60_000): Promise<void> {
  try {
    await page.locator('.interactive-input-part .model-picker-name', { hasText: modelName }).first().waitFor({ timeout: timeoutMs });
  } catch (error) {
    const shown = await pickedModel(page).catch(() => '(no picker)');
    throw new Error(`the model picker shows "${shown}", not "${modelName}", after ${timeoutMs / 1000} s: ${(error as Error).message.split('\n')[0]}`);
  }
}

function modelPicker(page: Page): Locator {
  return page.locator('.interactive-input-part .model-picker-name').first();
}

/** Picks `modelName` in the Chat view's model picker (under Other Models when it is not among the first) and waits until the picker shows it. */
export async function pickModel(page: Page, modelName: string): Promise<void> {
  // The picker can open as an empty "Search models" box, its list not yet filled (seen in CI on a loaded
  // machine): then it is closed and opened again, up to three times.
  for (let attempt = 1; ; attempt++) {
    await modelPicker(page).click({ timeout: 15_000 });
    const widget = page.locator('.action-widget');
    await widget.first().waitFor({ state: 'visible', timeout: 15_000 });
    const option = widget.locator('.monaco-list-row', { hasText: modelName });
    try {
      if ((await option.count()) === 0) await widget.locator('.chat-model-picker-section-toggle', { hasText: 'Other Models' }).first().click({ timeout: 5_000 });
      await option.first().click({ timeout: 10_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`      (the model picker showed no "${modelName}" row; opening it again)`);
      await page.keyboard.press('Escape');
      await widget.first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined); // closed or not: the next click opens it
    }
  }
  await page.locator('.interactive-input-part .model-picker-name', { hasText: modelName }).first().waitFor({ timeout: 15_000 });
}

/**
 * The notification asking whether to start the repository's MCP server `name`, in the notification centre
 * (opened here): a warning toast with buttons hides itself after a few seconds, the centre keeps it.
 */
export async function mcpTrustNotification(page: Page, name: string): Promise<Locator> {
  await showNotifications(page);
  return page.locator('.notifications-center .notification-list-item', { hasText: `wants to start the MCP server "${name}"` });
}

/** A notification, as a toast or in the notification centre. */
export function notification(page: Page, text: string): Locator {
  return page.locator('.notification-toast, .notifications-center .notification-list-item', { hasText: text });
}

export async function showNotifications(page: Page): Promise<void> {
  if (await page.locator('.notifications-center.visible').count()) return;
  await runCommand(page, 'Notifications: Show Notifications');
  await page.locator('.notifications-center.visible').waitFor({ timeout: 15_000 });
}
