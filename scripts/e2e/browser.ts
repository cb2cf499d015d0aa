// Headless chromium (Debian's, driven by playwright-core; never a downloaded browser) on the workbench.
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
// Running as root in a container: no sandbox, no GPU, nothing that phones home (the flags live in shared.ts).
import { CHROMIUM_ARGS, sharedBrowser, sharing } from './shared';

export interface Workbench {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export interface OpenOptions {
  chromium: string;
  runDir: string;
  url: string;
  /** Called before navigation, e.g. to expose codeAutomationLog / codeAutomationExit. */
  beforeGoto?: (page: Page) => Promise<void>;
  /** Wait for the workbench DOM (skip for extension tests: their exit is the signal). */
  waitForWorkbench?: boolean;
}

export async function openWorkbench(options: OpenOptions): Promise<Workbench> {
  if (sharing()) return openInSharedBrowser(options);
  const browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    // playwright gives every launch a fresh temporary profile.
    args: CHROMIUM_ARGS,
    env: { ...process.env, HOME: path.join(options.runDir, 'home') } as Record<string, string>,
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    if (options.beforeGoto) await options.beforeGoto(page);
    await page.goto(options.url);
    if (options.waitForWorkbench ?? true) {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    }
    return { browser, page, close: () => browser.close().catch(() => undefined) };
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
}

/** A window of the shared chromium: a context of its own (fresh storage), closed with the window. */
async function openInSharedBrowser(options: OpenOptions): Promise<Workbench> {
  const browser = await sharedBrowser(options.chromium);
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    if (options.beforeGoto) await options.beforeGoto(page);
    await page.goto(options.url);
    if (options.waitForWorkbench ?? true) {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    }
    return { browser, page, close: () => context.close().catch(() => undefined) };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}
