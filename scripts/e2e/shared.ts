// One code-server and one chromium for a whole mocha run of the UI checks, instead of one of each per test
// file: `--require out/test/e2e/sharedWorkbench.js` turns sharing on (npm test, npm run test:ui); a file run
// on its own starts its own, as before. What stays per file: its run folder, store, workspace, fake server,
// user settings (rewritten when its stack starts) and the extension host's environment, which reaches the
// window through the workbench URL's `extensionEnvironment` payload (VS Code hands it to that window's
// extension host only; a built workbench reads the payload only with the smoke-test driver enabled), so
// each file's windows talk to its own runtime and fake.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { startCodeServer } from './codeServer';
import type { CodeServer } from './codeServer';
import { stopRuntimesFor } from './processes';
import type { E2eTools } from './tools';
import { repoRoot } from './tools';

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

/**
 * A closed window's extension host (and so its runtime connection) ends this soon after, instead of
 * waiting hours for the window to reconnect: the next file's stack must not share a store with it.
 */
const RECONNECTION_GRACE_SECONDS = 3;

interface SharedState {
  runDir: string;
  codeServer?: Promise<CodeServer>;
  browser?: Promise<Browser>;
  /** Environment of the stack that started last and has not stopped: what its windows get. */
  current?: { id: number; env: Record<string, string> };
  stores: string[];
}

let shared: SharedState | undefined;
let nextStackId = 1;

/** Turns sharing on for this process (the mocha root hook plugin calls it). */
export function shareWorkbench(): void {
  shared ??= { runDir: fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-shared-')), stores: [] };
}

export function sharing(): boolean {
  return shared !== undefined;
}

/** The shared code-server, started on first use with the built extension installed (as a user has it). */
export function sharedCodeServer(tools: E2eTools): Promise<CodeServer> {
  if (!shared) throw new Error('sharing is off: call shareWorkbench() first');
  shared.codeServer ??= startCodeServer({
    tools,
    runDir: shared.runDir,
    env: {},
    installExtensionFrom: repoRoot(),
    smokeTestDriver: true,
    extraArgs: ['--reconnection-grace-time', String(RECONNECTION_GRACE_SECONDS)],
  });
  return shared.codeServer;
}

/** One chromium for every window; each window gets a context (profile) of its own. */
export function sharedBrowser(chromiumPath: string): Promise<Browser> {
  if (!shared) throw new Error('sharing is off: call shareWorkbench() first');
  const home = path.join(shared.runDir, 'chromium-home');
  fs.mkdirSync(home, { recursive: true });
  shared.browser ??= chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, env: { ...process.env, HOME: home } as Record<string, string> });
  return shared.browser;
}

/** A stack on the shared server starts: its windows get `env`; returns what ends that. */
export function enterStack(env: Record<string, string>, storeDir: string): () => void {
  if (!shared) throw new Error('sharing is off');
  const id = nextStackId++;
  shared.current = { id, env };
  shared.stores.push(storeDir);
  return () => {
    if (shared?.current?.id === id) shared.current = undefined;
  };
}

/**
 * The workbench URL with the current stack's extension environment in its payload (merged under any the
 * URL already carries), for URLs on the shared server; any other URL as it is. Tests that build a URL by
 * hand (`?folder=…`) get the same environment as those that use workbenchUrl().
 */
export async function withStackEnvironment(url: string): Promise<string> {
  if (!shared?.codeServer || !shared.current) return url;
  const server = await shared.codeServer;
  if (!url.startsWith(server.origin)) return url;
  const parsed = new URL(url);
  const payload = JSON.parse(parsed.searchParams.get('payload') ?? '[]') as [string, string][];
  const given = payload.find(([key]) => key === 'extensionEnvironment');
  const env = { ...shared.current.env, ...(given ? (JSON.parse(given[1]) as Record<string, string>) : {}) };
  const rest = payload.filter(([key]) => key !== 'extensionEnvironment');
  parsed.searchParams.set('payload', JSON.stringify([...rest, ['extensionEnvironment', JSON.stringify(env)]]));
  return parsed.toString();
}

/** Ends the shared chromium and code-server, then any runtime a stack's extension host left behind. */
export async function closeSharedWorkbench(): Promise<void> {
  if (!shared) return;
  const { browser, codeServer, runDir, stores } = shared;
  shared = undefined;
  await (await browser?.catch(() => undefined))?.close().catch(() => undefined);
  await (await codeServer?.catch(() => undefined))?.stop();
  // An extension host may have restarted its runtime after the stack stopped it, before it ended itself.
  for (const store of stores) stopRuntimesFor(store);
  fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
}
