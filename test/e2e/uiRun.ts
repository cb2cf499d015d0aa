// One UI check's surroundings, started before its tests and torn down after them: a scripted fake model
// (or the stack's demo model), code-server with the extension and the user's settings, and a Chromium window
// on the workbench. On a failure it saves a screenshot named after the test and copies the run's logs to
// test-results/logs/<label>; a second runtime client and the CLI are there for checks that look past the UI.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { openWorkbench } from '../../scripts/e2e/browser';
import { tearDownInBackground } from '../../scripts/e2e/shared';
import type { Workbench } from '../../scripts/e2e/browser';
import { DEMO_API_KEY, startStack } from '../../scripts/e2e/stack';
import type { Stack, StackOptions } from '../../scripts/e2e/stack';
import { requireE2eTools } from '../../scripts/e2e/tools';
import type { E2eTools } from '../../scripts/e2e/tools';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, FakeAnthropicOptions } from '../fakes/anthropicServer';
import { waitForChatSaved } from './chatStore';
import { describeFailure, onScreen } from './uiDiagnostics';
import { RESULTS_DIR, screenshot } from './workbenchUi';

const execFileAsync = promisify(execFile);

export interface UiRunOptions {
  /** A scripted fake in this process (it takes the demo key). Without it the stack's demo model answers. */
  fake?: Omit<FakeAnthropicOptions, 'apiKey'>;
  /** What startStack gets besides tools and label; `extension` defaults to 'install'. */
  stack?: Partial<Omit<StackOptions, 'tools' | 'label'>>;
  /** Runs after code-server started and before the window opens (files the window should find, settings). */
  prepare?: (run: UiRun) => void | Promise<void>;
  /** The page to open; default the sample workspace's .code-workspace file. */
  url?: (stack: Stack) => string;
  /** Runs first when the run ends, and after a failed test (its forks must not hold up the next), e.g. to let a fork that waits for the test finish. */
  release?: () => void;
}

export interface UiRun {
  readonly tools: E2eTools;
  readonly stack: Stack;
  /** The scripted fake of `options.fake` (there is none otherwise). */
  readonly fake: FakeAnthropic;
  readonly workbench: Workbench;
  readonly page: Page;
  /** A second client of the window's runtime (`runtimeScript`: another build's, e.g. the installed .vsix's). */
  observer(runtimeScript?: string): Promise<RuntimeClient>;
  /** The headless CLI against the window's store and model, as a user would run it beside the editor. */
  cli(...args: string[]): Promise<string>;
  /**
   * Reloads the window and waits until it shows the workspace again. `lastMessage`: the last request sent
   * in the chat, whose answer the reloaded chat should show; the reload waits until VS Code saved it
   * (chatStore.ts says why).
   */
  reload(options?: { lastMessage?: string }): Promise<void>;
}

/**
 * Registers the suite's before / afterEach / after hooks (call it inside `describe`) and returns the run
 * they fill in. `options` may be a function when it needs work done at start, not at load.
 */
export function uiRun(label: string, options: UiRunOptions | (() => UiRunOptions) = {}): UiRun {
  let tools: E2eTools | undefined;
  let fake: FakeAnthropic | undefined;
  let stack: Stack | undefined;
  let workbench: Workbench | undefined;
  let observer: RuntimeClient | undefined;
  let release: (() => void) | undefined;
  let failed = false;
  let url = '';
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the UI run "${label}" has no ${what} (not started, or it failed to start)`);
    return value;
  };

  const clock = { start: 0, stack: 0, window: 0, tests: 0 };
  const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;

  const run: UiRun = {
    get tools() {
      return started(tools, 'e2e tools');
    },
    get stack() {
      return started(stack, 'stack');
    },
    get fake() {
      return started(fake, 'scripted fake');
    },
    get workbench() {
      return started(workbench, 'workbench');
    },
    get page() {
      return started(workbench, 'workbench').page;
    },
    async observer(runtimeScript) {
      const { storeDir, root } = run.stack;
      observer ??= await connectRpc(await connectOrStart({ storeDir, runtimeScript: runtimeScript ?? path.join(root, 'dist', 'runtime.js') }), `${label}-e2e`);
      return observer;
    },
    async cli(...args) {
      const { root, storeDir, extensionEnv } = run.stack;
      const { stdout } = await execFileAsync(process.execPath, [path.join(root, 'dist', 'cli.js'), ...args, '--store', storeDir], {
        env: { ...process.env, ANTHROPIC_BASE_URL: extensionEnv.ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: extensionEnv.ANTHROPIC_API_KEY },
      });
      return stdout;
    },
    async reload(reloadOptions = {}) {
      const { page } = run.workbench;
      if (reloadOptions.lastMessage) {
        const since = Date.now();
        await waitForChatSaved(run.stack.codeServer.userDataDir, reloadOptions.lastMessage);
        if (Date.now() - since > 1_000) console.log(`      (the reload waited ${seconds(since, Date.now())} for VS Code to save the chat)`);
      }
      await page.reload();
      await showsWorkspace(page, url, path.basename(run.stack.workspace.folder));
    },
  };


  before(async function () {
    this.timeout(240_000);
    clock.start = Date.now();
    const chosen = typeof options === 'function' ? options() : options;
    release = chosen.release;
    tools = requireE2eTools();
    if (chosen.fake) fake = await startFakeAnthropic({ ...chosen.fake, apiKey: DEMO_API_KEY });
    const env = fake ? { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: DEMO_API_KEY } : undefined;
    stack = await startStack({
      extension: 'install',
      fake: !fake,
      ...chosen.stack,
      env: { ...env, ...chosen.stack?.env },
      tools,
      label,
    });
    clock.stack = Date.now();
    await chosen.prepare?.(run);
    url = chosen.url ? chosen.url(stack) : stack.codeServer.workbenchUrl(stack.workspace.workspaceFile);
    workbench = await openWorkbench({ chromium: tools.chromium, runDir: stack.runDir, url });
    clock.window = Date.now();
  });

  afterEach(async function () {
    const test = this.currentTest;
    if (test?.state !== 'failed' || !workbench) return;
    failed = true;
    const page = workbench.page;
    const name = `${label}-failed-${(test.title || 'test').replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 60)}`;
    const shot = await screenshot(page, name).catch(() => '(no screenshot: the page did not answer)');
    console.log(`      screenshot of the failure: ${shot}`);
    // mocha prints the error again at the end of the run, where a CI log's tail has it.
    describeFailure(test.err, await onScreen(page), shot);
    // What the failed step left open (a palette, a menu, a fork waiting for the test) must not fail the next test too.
    release?.();
    for (let i = 0; i < 2 && !page.isClosed(); i++) await page.keyboard.press('Escape').catch(() => undefined);
  });

  after(async function () {
    this.timeout(30_000);
    clock.tests = Date.now();
    release?.();
    // A failed start leaves no test to fail in afterEach: its logs are wanted too.
    if ((failed || !workbench) && stack) {
      const dest = path.join(RESULTS_DIR, 'logs', label);
      console.log(`      logs: ${stack.collectLogs(dest).length} files in test-results/logs/${label}`);
    }
    await tearDownInBackground(async () => {
      await observer?.close().catch(() => undefined);
      await workbench?.close();
      await stack?.stop();
      await fake?.close();
    });
    // Where a file's time goes: code-server's start (with the extension copied in), the window until the
    // workbench shows, the tests (the extension's activation and the model's first answer included), and
    // what is left of the teardown here (with a shared chromium it goes on while the next file starts).
    if (clock.window) console.log(`      time: code-server ${seconds(clock.start, clock.stack)}, window ${seconds(clock.stack, clock.window)}, tests ${seconds(clock.window, clock.tests)}, teardown ${seconds(clock.tests, Date.now())}`);
  });

  return run;
}

/**
 * Waits until the reloaded window shows the workspace: its title names `name`. A reload can come up as an
 * empty window ("No Folder Opened") although its URL still names the workspace; then the URL is loaded
 * again, once.
 */
async function showsWorkspace(page: Page, url: string, name: string): Promise<void> {
  const titled = (timeout: number) => page.waitForFunction(
    (expected: string) => (globalThis as unknown as { document: { title: string } }).document.title.includes(expected), name, { timeout });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  try {
    await titled(30_000);
  } catch {
    console.log(`      (the reloaded window's title is "${await page.title()}", not naming ${name}: loading ${url} again)`);
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await titled(60_000);
  }
}
