// An isolated code-server (real VS Code 1.139 workbench): its own HOME, XDG dirs, user data,
// extensions dir and config, so nothing from the machine or an earlier run leaks in.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, spawnGroup, waitForHttpOk } from './processes';
import type { E2eTools } from './tools';

export interface CodeServer {
  port: number;
  origin: string;
  home: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** Settles if code-server exits (on its own or by stop()). */
  exited: Promise<void>;
  /** Workbench URL for a workspace file, optionally with a test payload (extension tests). */
  workbenchUrl(workspaceFile: string, payload?: [string, string][]): string;
  /** vscode-remote URI of a path on this server (payload paths must use it; file:// runs nothing). */
  remoteUri(absPath: string): string;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  tools: E2eTools;
  runDir: string;
  /** Extra environment for code-server and so for its extension host. */
  env: Record<string, string>;
  port?: number;
  /** Interface to listen on; 127.0.0.1 unless the editor must be reachable from elsewhere. */
  host?: string;
  /** Extension package dir to install by copying it into the extensions dir. */
  installExtensionFrom?: string;
  /** A packaged .vsix to install with `code-server --install-extension`, as a user installs it. */
  installVsix?: string;
  /** Needed for extension tests through the URL payload. */
  smokeTestDriver?: boolean;
  userSettings?: Record<string, unknown>;
}

const BASE_SETTINGS = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  // No animations and no blinking caret: on a GPU-less headless chromium every animated frame is drawn in
  // software. A trace of the panel checks (2026-12-04) spent 12 s of the compositor's thread and 25 s of the
  // page's main thread with them, 6.5 s and 20.6 s without; what the checks look at is the same.
  'workbench.reduceMotion': 'on',
  'editor.cursorBlinking': 'solid',
};

/**
 * Keys the UI checks press instead of palette runs of commands they run all the time (a palette run types,
 * filters and clicks a row; on a busy machine its row can miss the first click). Bound to no default.
 */
export const TEST_KEYBINDINGS = [{ key: 'ctrl+shift+alt+f12', command: 'workbench.action.chat.open' }];

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const home = path.join(options.runDir, 'home');
  const userDataDir = path.join(options.runDir, 'user-data');
  const extensionsDir = path.join(options.runDir, 'extensions');
  for (const dir of [home, path.join(userDataDir, 'User'), extensionsDir]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...BASE_SETTINGS, ...options.userSettings }, null, 2),
  );
  fs.writeFileSync(path.join(userDataDir, 'User', 'keybindings.json'), JSON.stringify(TEST_KEYBINDINGS, null, 2));
  const config = path.join(options.runDir, 'code-server.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  if (options.installExtensionFrom) installByCopy(options.installExtensionFrom, extensionsDir);
  if (options.installVsix) installVsix(options, userDataDir, extensionsDir, home);

  const args = [
    options.tools.codeServer,
    '--bind-addr', `${host}:${port}`,
    '--auth', 'none',
    '--config', config,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
  ];
  if (options.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    ...options.env,
  };
  const logFile = path.join(options.runDir, 'code-server.log');
  const group = spawnGroup(options.tools.node, args, { env, logFile });
  // Listening on all interfaces is still reached locally through the loopback address.
  const reach = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const origin = `http://${reach}:${port}`;
  try {
    await waitForHttpOk(`${origin}/healthz`, 60_000, group.child);
  } catch (error) {
    await group.stop(1000);
    throw new Error(`${(error as Error).message}\n--- ${logFile} ---\n${tail(logFile, 30)}`);
  }
  const remoteUri = (absPath: string) => `vscode-remote://${reach}:${port}${absPath}`;
  return {
    port,
    origin,
    home,
    userDataDir,
    extensionsDir,
    logFile,
    exited: group.exited,
    remoteUri,
    workbenchUrl(workspaceFile, payload) {
      let url = `${origin}/?workspace=${encodeURIComponent(workspaceFile)}`;
      if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      return url;
    },
    stop: () => group.stop(5000),
  };
}

function installVsix(options: CodeServerOptions, userDataDir: string, extensionsDir: string, home: string): void {
  const result = spawnSync(
    options.tools.node,
    [options.tools.codeServer, '--install-extension', options.installVsix as string, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir],
    { env: { ...process.env, HOME: home }, encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0) {
    throw new Error(`code-server --install-extension ${options.installVsix} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  }
}

/** What a .vsix of the extension carries: the manifest, the bundles and the docs. */
const PACKAGE_ENTRIES = ['package.json', 'dist', 'LICENSE', 'README.md', 'CHANGELOG.md', 'package.nls.json', 'media', 'resources', 'images'];

export function installByCopy(packageDir: string, extensionsDir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
  };
  if (!fs.existsSync(path.join(packageDir, 'dist', 'extension.js'))) {
    throw new Error(`${packageDir}/dist/extension.js is missing: run node esbuild.mjs first`);
  }
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const entry of PACKAGE_ENTRIES) {
    const from = path.join(packageDir, entry);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(target, entry), { recursive: true });
  }
  return target;
}

export function tail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return `(no ${file})`;
  }
}
