// One isolated run: fake Anthropic server, fresh git workspace, store dir and code-server, torn down together.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCodeServer } from './codeServer';
import type { CodeServer } from './codeServer';
import { startFakeAnthropic } from './fakeAnthropic';
import type { FakeAnthropic } from './fakeAnthropic';
import { stopRuntimesFor } from './processes';
import type { E2eTools } from './tools';
import { repoRoot } from './tools';
import { prepareWorkspace } from './workspace';
import type { SampleWorkspace } from './workspace';

export const DEMO_API_KEY = 'sk-ant-fork-agents-demo';

export interface StackOptions {
  tools: E2eTools;
  /** 'install': copy the built package into the extensions dir (as a user has it);
   *  'develop': nothing installed, the URL payload loads the repo as extensionDevelopmentPath. */
  extension: 'install' | 'develop' | { vsix: string };
  /** Start the fake server with its demo model and point the extension at it. */
  fake: boolean;
  streamDelayMs?: number;
  /** The fake lists its models (GET /v1/models), as the API does. */
  models?: boolean;
  /** Key the extension sends (defaults to the fake's key). */
  apiKey?: string;
  port?: number;
  host?: string;
  workspaceSettings?: Record<string, unknown>;
  /** User settings (application-scope ones such as fork.prices are read only from there). */
  userSettings?: Record<string, unknown>;
  /** Environment for code-server (and so the extension host) when there is no fake. */
  env?: Record<string, string>;
  keepRunDir?: boolean;
  label?: string;
}

export interface Stack {
  root: string;
  runDir: string;
  storeDir: string;
  workspace: SampleWorkspace;
  fake?: FakeAnthropic;
  codeServer: CodeServer;
  /** The extension host's view of model access (also handed to tests through the payload). */
  extensionEnv: Record<string, string>;
  /** Restarts the fake on the same port, e.g. with a key the extension does not have. */
  restartFake(apiKey: string): Promise<FakeAnthropic>;
  /** Copies the run's logs (code-server, extension host, runtime, fake) to `dest` for a failure report. */
  collectLogs(dest: string): string[];
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const root = repoRoot();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `fork-agents-${options.label ?? 'e2e'}-`));
  const storeDir = path.join(runDir, 'store');
  fs.mkdirSync(storeDir, { recursive: true });
  const cleanups: (() => Promise<void>)[] = [];
  let fake: FakeAnthropic | undefined;
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
    // The runtime runs detached from the extension host on purpose (docs/design.md §2): stop it by its store.
    stopRuntimesFor(storeDir);
    if (!options.keepRunDir) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const extensionEnv: Record<string, string> = { FORK_AGENTS_STORE: storeDir, ...options.env };
    if (options.fake) {
      fake = await startFakeAnthropic({ repoRoot: root, logDir: runDir, apiKey: DEMO_API_KEY, streamDelayMs: options.streamDelayMs, models: options.models });
      cleanups.push(() => fake!.stop());
      extensionEnv.ANTHROPIC_BASE_URL = fake.url;
      extensionEnv.ANTHROPIC_API_KEY = options.apiKey ?? fake.apiKey;
    }
    const workspace = prepareWorkspace(path.join(root, 'test', 'sample-workspace'), runDir, options.workspaceSettings);
    const codeServer = await startCodeServer({
      tools: options.tools,
      runDir,
      userSettings: options.userSettings,
      env: extensionEnv,
      port: options.port,
      host: options.host,
      installExtensionFrom: options.extension === 'install' ? root : undefined,
      installVsix: typeof options.extension === 'object' ? options.extension.vsix : undefined,
      smokeTestDriver: options.extension === 'develop',
    });
    cleanups.push(() => codeServer.stop());
    return {
      root,
      runDir,
      storeDir,
      workspace,
      get fake() {
        return fake;
      },
      codeServer,
      extensionEnv,
      async restartFake(apiKey: string) {
        if (!fake) throw new Error('this stack runs without the fake server');
        const port = fake.port;
        await fake.stop();
        fake = await startFakeAnthropic({ repoRoot: root, logDir: runDir, apiKey, port, streamDelayMs: options.streamDelayMs, models: options.models });
        return fake;
      },
      collectLogs: dest => collectLogs(runDir, dest),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const LOG_NAME = /\.log$/;

function collectLogs(runDir: string, dest: string): string[] {
  const copied: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'extensions' && entry.name !== 'sample-project' && entry.name !== 'CachedData') walk(full);
      } else if (LOG_NAME.test(entry.name)) {
        const target = path.join(dest, path.relative(runDir, full));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(full, target);
        copied.push(target);
      }
    }
  };
  if (fs.existsSync(runDir)) walk(runDir);
  return copied;
}
