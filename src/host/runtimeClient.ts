// The extension's connection to the runtime process (docs/design.md §2): a vscode-languageclient LanguageClient
// over the socket of the detached runtime that serves this workspace's store, started if none runs.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, State } from 'vscode-languageclient/node';
import type { LanguageClientOptions, StreamInfo } from 'vscode-languageclient/node';
import { connectOrStart, runtimeTokenFor } from '../client/launch';
import { PROTOCOL_VERSION } from '../common/protocol/runtime';
import type { InitializationOptions } from '../common/protocol/runtime';
import { RestartPolicy } from './restartPolicy';
import { redactingTraceChannel } from './traceRedaction';
import { findRipgrep } from './ripgrep';
import { RuntimeConnection } from './runtimeConnection';
import type { HostSettings } from './settings';
import type { McpSettings } from './mcp/mcpSettings';

/** FORK_AGENTS_STORE (tests, scripts) or this workspace's storage folder — one runtime per store. */
export function resolveStoreDir(context: vscode.ExtensionContext): string {
  const fromEnv = process.env.FORK_AGENTS_STORE?.trim();
  if (fromEnv) return path.resolve(fromEnv);
  // Keyed by the first workspace folder, not by storageUri: a single-folder window that becomes a
  // workspace (adding a fork's worktree root) keeps its folder but gets a new storageUri, and must
  // still reach the same runtime, sessions and forks.
  const first = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const key = first ? createHash('sha256').update(first).digest('hex').slice(0, 16) : 'no-folder';
  return path.join(context.globalStorageUri.fsPath, 'stores', key);
}

export function createRuntimeConnection(
  context: vscode.ExtensionContext,
  settings: HostSettings,
  output: vscode.LogOutputChannel,
  storeDir: string,
  mcp: McpSettings,
): RuntimeConnection {
  const ripgrepPath = findRipgrep(vscode.env.appRoot);
  const runtimeScript = context.asAbsolutePath(path.join('dist', 'runtime.js'));
  const connection = new RuntimeConnection({
    createClient: onSocket => createLanguageClient({ storeDir, runtimeScript, output, onSocket }),
    configuration: async () => {
      const access = await settings.modelAccess();
      const { problems, ...spending } = settings.spending();
      if (problems.length > 0) {
        output.warn(`Spending settings ignored: ${problems.join(' ')}`);
        void vscode.window.showWarningMessage(`Fork Agents ignored invalid spending settings: ${problems.join(' ')}`);
      }
      // runtime/configure merges into what it has: '' (not undefined) clears a removed key or endpoint.
      return {
        ...access, ...spending, apiKey: access.apiKey ?? '', baseUrl: access.baseUrl ?? '', ripgrepPath,
        maxConcurrentForks: settings.maxConcurrentForks(), answersForkApprovals: true,
        contextWindow: settings.contextWindow(), autoCompactAt: settings.autoCompactAt(), worktreeRoot: settings.worktreeRoot(),
        retentionDays: settings.retentionDays(),
        tournamentVerify: settings.tournamentVerify(),
        worktree: settings.worktreeOptions(),
        sandbox: settings.sandbox(),
        restricted: settings.restricted(),
        thinkingBudgetTokens: settings.thinkingBudgetTokens(), cacheTtl: settings.cacheTtl(), effort: settings.effort(),
        proxy: settings.proxy(), mcpServers: await mcp.servers(), ...settings.provider(),
      };
    },
    log: output,
  });
  context.subscriptions.push(connection, settings.onDidChange(() => connection.reconfigure()), mcp.onDidChange(() => connection.reconfigure()));
  // A window that never used forks starts no runtime: the first request starts it. A store that exists has
  // sessions or forks (the runtime creates it), so reconnect at once — a fork may have ended during a reload
  // and be waiting to be announced, and the panel shows live state.
  if (fs.existsSync(storeDir)) void connection.start();
  return connection;
}

interface ClientOptions {
  storeDir: string;
  runtimeScript: string;
  output: vscode.LogOutputChannel;
  onSocket(socket: net.Socket): void;
}

/** LanguageClient's own pop-ups are generic ("couldn't create connection"): the host reports runtime trouble itself, in context. */
class RuntimeLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

let noticeShown = false;

function createLanguageClient(options: ClientOptions): LanguageClient {
  const restarts = new RestartPolicy();
  let client: LanguageClient | undefined;
  let socket: net.Socket | undefined;
  const serverOptions = async (): Promise<StreamInfo> => {
    socket = await connectOrStart({
      storeDir: options.storeDir, runtimeScript: options.runtimeScript, nodePath: process.execPath,
      onNotice: message => {
        options.output.warn(message);
        // Once per window: every reconnect would say it again.
        if (noticeShown) return;
        noticeShown = true;
        void vscode.window.showWarningMessage(`Fork Agents: ${message}`);
      },
    });
    options.onSocket(socket);
    return { reader: socket, writer: socket, detached: true };
  };
  // Read at each initialize: the token of the runtime this socket reached.
  const initializationOptions = (): InitializationOptions => ({
    protocolVersion: PROTOCOL_VERSION, clientName: 'vscode', token: socket && runtimeTokenFor(socket),
  });
  const clientOptions: LanguageClientOptions = {
    documentSelector: [],
    outputChannel: options.output,
    // A verbose trace prints every message's parameters: runtime/configure carries the key.
    traceOutputChannel: redactingTraceChannel(options.output),
    initializationOptions,
    // A protocol mismatch or a refused token is handled by RuntimeConnection (a new client, a new try).
    initializationFailedHandler: () => false,
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      // Reconnecting runs serverOptions again, which starts a new runtime when the old one died. A connection
      // that never got past initialize (another protocol version) is not redialled: the next request decides.
      closed: () => {
        if (client?.state !== State.Running) {
          return { action: CloseAction.DoNotRestart, handled: true, message: 'The runtime connection closed before it was initialized.' };
        }
        return restarts.shouldRestart()
          ? { action: CloseAction.Restart, handled: true, message: 'The runtime connection closed; reconnecting.' }
          : { action: CloseAction.DoNotRestart, handled: true, message: 'The runtime keeps closing the connection; the next request tries again. See runtime.log.' };
      },
    },
  };
  client = new RuntimeLanguageClient('forkAgentsRuntime', 'Fork Agents Runtime', serverOptions, clientOptions);
  return client;
}
