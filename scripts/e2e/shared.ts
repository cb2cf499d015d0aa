// One chromium for a whole mocha run of the UI checks instead of one per test file: `--require
// out/test/e2e/sharedWorkbench.js` turns sharing on (npm test, npm run test:ui); a file run on its own
// launches its own, as before. Under mocha --parallel it is one chromium per worker process, kept from one
// file to the next and ended with the worker. Each window still gets a browser context (profile, storage)
// of its own.
//
// Each file keeps its own code-server. One server for every file would need each window's extension host to
// get its file's environment (store, endpoint, key); VS Code hands a window the URL payload's
// `extensionEnvironment` only with the smoke-test driver enabled, and that driver also turns off
// notification toasts and dialogs, which the UI checks look at.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

// Running as root in a container: no sandbox, no GPU, nothing that phones home.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

interface SharedState {
  home: string;
  browser?: Promise<Browser>;
  /** Teardowns of finished files still under way (code-server exiting, the run's folder removed). */
  teardowns: Promise<void>[];
}

let shared: SharedState | undefined;

/** Turns sharing on for this process (the mocha root hook plugin calls it; again for each file is fine). */
export function shareWorkbench(): void {
  if (shared) return;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-chromium-'));
  shared = { home, teardowns: [] };
  // A worker kept its chromium to the end (finishSharedFile): playwright kills it when this process exits;
  // its profile's folder goes here.
  process.once('exit', () => fs.rmSync(home, { recursive: true, force: true }));
}

export function sharing(): boolean {
  return shared !== undefined;
}

/** The one chromium, launched on first use. */
export function sharedBrowser(chromiumPath: string): Promise<Browser> {
  if (!shared) throw new Error('sharing is off: call shareWorkbench() first');
  const state = shared;
  state.browser ??= chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, HOME: state.home } as Record<string, string>,
  }).then(browser => {
    // A chromium that crashed in one file is not handed to the next: that file launches a fresh one.
    browser.once('disconnected', () => {
      if (state.browser === launched) state.browser = undefined;
    });
    return browser;
  });
  const launched = state.browser;
  return launched;
}

/**
 * Runs a finished file's teardown. With sharing on it goes on while the next file starts (stopping
 * code-server and removing the run's folder take seconds that are mostly waiting); the end of the run
 * waits for all of them. A file run on its own waits for its teardown.
 */
export function tearDownInBackground(teardown: () => Promise<void>): Promise<void> {
  if (!shared) return teardown();
  shared.teardowns.push(teardown().catch(error => console.log(`      (a UI run's teardown failed: ${(error as Error).message})`)));
  return Promise.resolve();
}

/**
 * Waits for the finished files' teardowns and keeps the chromium for the next file of this process (a
 * mocha --parallel worker: its root hooks run around each file, and it cannot tell which file is its
 * last). Starting a chromium costs about 2 s of CPU; a worker runs 8 or 9 files.
 */
export async function finishSharedFile(): Promise<void> {
  if (!shared) return;
  const teardowns = shared.teardowns.splice(0);
  await Promise.all(teardowns);
}

/** Closes the shared chromium (after the last file), once every file's teardown is over. */
export async function closeSharedWorkbench(): Promise<void> {
  if (!shared) return;
  const { browser, home, teardowns } = shared;
  await Promise.all(teardowns);
  shared = undefined;
  await (await browser?.catch(() => undefined))?.close().catch(() => undefined);
  fs.rmSync(home, { recursive: true, force: true, maxRetries: 3 });
}
