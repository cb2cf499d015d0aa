// The typed facade over the runtime's LanguageClient: every request first makes sure the client runs and
// has sent `runtime/configure` for the current connection (after each reconnect, and again whenever the
// settings or the key change). A client whose start failed cannot be restarted, so it is replaced.
import type * as net from 'node:net';
import * as vscode from 'vscode';
import { State } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { NotificationDescriptor, RequestDescriptor } from '../common/protocol/descriptor';
import { onNotification, onRequest, sendRequest } from '../common/protocol/endpoint';
import type { Disposable, RpcEndpoint } from '../common/protocol/endpoint';
import { RuntimeErrorCode, runtimeConfigure, sessionEvent } from '../common/protocol/runtime';
import type { ConfigureParams, RuntimeInfo, SessionEventParams } from '../common/protocol/runtime';
import { RuntimeUnavailableError } from './runtimeApi';
import type { RuntimeApi } from './runtimeApi';

export interface RuntimeConnectionDeps {
  createClient(onSocket: (socket: net.Socket) => void): LanguageClient;
  configuration(): Promise<ConfigureParams>;
  log: vscode.LogOutputChannel;
}

type Install = (endpoint: RpcEndpoint) => Disposable;

export class RuntimeConnection implements RuntimeApi, vscode.Disposable {
  private client?: LanguageClient;
  private socket?: net.Socket;
  private wiring: Disposable[] = [];
  private configured?: Promise<void>;
  private readonly turns = new Map<string, (params: SessionEventParams) => void>();
  private readonly installs = new Set<Install>();
  private readonly listeners = new Map<string, Set<(params: unknown) => void>>();

  constructor(private readonly deps: RuntimeConnectionDeps) {}

  async request<P, R>(descriptor: RequestDescriptor<P, R>, params: P): Promise<R> {
    return sendRequest(await this.ready(), descriptor, params);
  }

  onEvent(turnId: string, listener: (params: SessionEventParams) => void): Disposable {
    this.turns.set(turnId, listener);
    return { dispose: () => void (this.turns.get(turnId) === listener && this.turns.delete(turnId)) };
  }

  /** A runtime notification (e.g. `fork/state`); the listener survives reconnects. */
  listen<P>(descriptor: NotificationDescriptor<P>, listener: (params: P) => void): vscode.Disposable {
    // The client keeps one handler per method (a second onNotification replaces the first), so each
    // method gets one handler that calls every listener: the notifier, the panel and worktree roots.
    let listeners = this.listeners.get(descriptor.method);
    if (!listeners) {
      const all = new Set<(params: unknown) => void>();
      listeners = all;
      this.listeners.set(descriptor.method, all);
      this.persist(endpoint => onNotification(endpoint, descriptor, params => {
        for (const each of [...all]) {
          try {
            each(params);
          } catch (error) {
            this.deps.log.warn(`a ${descriptor.method} listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }));
    }
    const added = listener as (params: unknown) => void;
    listeners.add(added);
    const current = listeners;
    return new vscode.Disposable(() => void current.delete(added));
  }

  /** A handler for runtime → client requests; it survives reconnects and client replacement. */
  handle<P, R>(descriptor: RequestDescriptor<P, R>, handler: (params: P) => R | Promise<R>): vscode.Disposable {
    return this.persist(endpoint => onRequest(endpoint, descriptor, handler));
  }

  private persist(install: Install): vscode.Disposable {
    this.installs.add(install);
    const current = this.client ? install(this.client) : undefined;
    return new vscode.Disposable(() => {
      this.installs.delete(install);
      current?.dispose();
    });
  }

  reconfigure(): void {
    if (this.client?.state === State.Running) this.configured = this.configure(this.client);
  }

  /** Connects early so the first chat request is quick; a failure is shown once here. */
  async start(): Promise<void> {
    try {
      await this.ready();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const choice = await vscode.window.showErrorMessage(message, 'Show Runtime Log');
      if (choice) await vscode.commands.executeCommand('forkAgents.showRuntimeLog');
    }
  }

  dispose(): void {
    for (const d of this.wiring) d.dispose();
    // Safe to drop: disposing a client whose runtime is gone: nothing is left to close.
    this.client?.dispose().catch(() => undefined);
    this.client = undefined;
  }

  private async ready(): Promise<LanguageClient> {
    if (!this.client || this.client.state === State.StartFailed) this.replaceClient();
    let client = this.client as LanguageClient;
    for (let attempt = 1; client.state !== State.Running; attempt++) {
      try {
        await client.start();
      } catch (error) {
        // An idle runtime of another version stops when we connect; the next start launches ours. A runtime
        // that had just started may not have replaced its token file when we read it: the next try reads it again.
        const retry = isMakingWay(error) ? 'Runtime of another version is making way' : isTokenRefused(error) ? 'Runtime refused the token read' : undefined;
        if (!retry || attempt >= REPLACE_ATTEMPTS) throw this.unavailable(error);
        this.deps.log.info(`${retry} (attempt ${attempt}); connecting again.`);
        await new Promise(resolve => setTimeout(resolve, 250 * attempt));
        this.replaceClient();
        client = this.client as LanguageClient;
      }
    }
    this.configured ??= this.configure(client);
    await this.configured;
    return client;
  }

  private replaceClient(): void {
    for (const d of this.wiring) d.dispose();
    // Safe to drop: disposing a client whose runtime is gone: nothing is left to close.
    this.client?.dispose().catch(() => undefined);
    const client = this.deps.createClient(socket => (this.socket = socket));
    this.client = client;
    this.configured = undefined;
    this.wiring = [
      onNotification(client, sessionEvent, params => this.turns.get(params.turnId)?.(params)),
      ...[...this.installs].map(install => install(client)),
      client.onDidChangeState(event => {
        this.configured = event.newState === State.Running ? this.configure(client) : undefined;
      }),
    ];
  }

  private configure(client: LanguageClient): Promise<void> {
    const attempt = (async () => {
      const params = await this.deps.configuration();
      const info: RuntimeInfo = await sendRequest(client, runtimeConfigure, params);
      // Never the key itself: only whether there is one.
      this.deps.log.info(
        `Runtime ${info.pid} (v${info.version}, store ${info.storeDir}) configured: model ${params.model}, ` +
          `API key ${params.apiKey ? 'set' : 'missing'}, endpoint ${params.baseUrl || 'default'}, ` +
          `approvals ${params.approvalMode}${params.restricted ? ' (Restricted Mode: read only)' : ''}, ripgrep ${params.ripgrepPath ?? 'fallback'}.`,
      );
    })();
    attempt.catch(error => {
      if (this.configured === attempt) this.configured = undefined;
      this.deps.log.warn(`runtime/configure failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    return attempt;
  }

  private unavailable(error: unknown): RuntimeUnavailableError {
    // A runtime that refused us must not be kept busy by our half-open socket (it exits when idle).
    this.socket?.destroy();
    const message = error instanceof Error ? error.message : String(error);
    const failure = error as { code?: unknown; data?: { runtime?: { pid?: number; version?: string } } };
    if (failure.code === RuntimeErrorCode.protocolMismatch) {
      const runtime = failure.data?.runtime;
      const who = runtime ? ` (pid ${runtime.pid}, version ${runtime.version})` : '';
      return new RuntimeUnavailableError(
        `The Fork Agents runtime serving this workspace${who} belongs to another version of the extension. ${message} ` +
          'It is still running a turn or forks; when they are done and it has been idle for 10 minutes it stops by itself — then reload the window (or end that process now).',
        true,
      );
    }
    return new RuntimeUnavailableError(`The Fork Agents runtime could not be started: ${message}`);
  }
}

const REPLACE_ATTEMPTS = 5;

function isTokenRefused(error: unknown): boolean {
  return (error as { code?: unknown })?.code === RuntimeErrorCode.unauthorized;
}

function isMakingWay(error: unknown): boolean {
  const failure = error as { code?: unknown; data?: { replacing?: unknown } };
  return failure?.code === RuntimeErrorCode.protocolMismatch && failure.data?.replacing === true;
}
