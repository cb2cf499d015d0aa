// Driving the VS Code workbench in chromium: command palette, Chat view, screenshots.
// Selectors are the ones verified in ../shared/vscode-e2e/ui-notes.md.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { repoRoot } from '../../scripts/e2e/tools';

export const RESULTS_DIR = path.join(repoRoot(), 'test-results');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Runs a command by its palette title (exact label match, so "Chat: Open Chat" is not "…(Agent)"). */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({
    has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
  });
  await row.first().click({ timeout: 15_000 });
  await input.waitFor({ state: 'hidden', timeout: 15_000 });
}

export function chatInput(page: Page): Locator {
  return page.locator('.interactive-input-part').first();
}

export async function openChat(page: Page): Promise<void> {
  await runCommand(page, 'Chat: Open Chat');
  await chatInput(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/** The model picker lists a provider's model a moment after activation; typing earlier starts a sign-in flow. */
export async function waitForModelInPicker(page: Page, modelName: string): Promise<void> {
  await page.locator('.interactive-input-part', { hasText: modelName }).first().waitFor({ state: 'visible', timeout: 60_000 });
}

export async function typeInChat(page: Page, text: string): Promise<void> {
  await page.locator('.interactive-input-part .monaco-editor').first().click();
  await page.keyboard.type(text);
}

export function lastResponse(page: Page): Locator {
  return page.locator('.interactive-response').last();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
