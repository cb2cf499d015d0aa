// The `fork.*` settings plus the key: everything the runtime's `runtime/configure` and the LM provider need.
import * as vscode from 'vscode';
import { isApprovalMode } from '../common/approval';
import type { ApprovalMode } from '../common/approval';
import { DEFAULT_MAX_CONCURRENT_FORKS, DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from '../common/defaults';
import { parseForkTurns } from '../common/forkTurns';
import type { ForkTurns } from '../common/forkTurns';
import { DEFAULT_BASE_URL, resolveBaseUrl } from './modelAccess';
import type { ApiKeyStore } from './secrets';
import type { ConfigureParams, ProxySettings } from '../common/protocol/runtime';
import type { ListedModel } from '../common/protocol/model';

export interface ModelAccess {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  maxTokens: number;
  approvalMode: ApprovalMode;
}

export class HostSettings {
  /** Fires when a `fork.*` setting or the stored key changes. */
  readonly onDidChange: vscode.Event<void>;

  constructor(context: vscode.ExtensionContext, private readonly keys: ApiKeyStore) {
    const emitter = new vscode.EventEmitter<void>();
    this.onDidChange = emitter.event;
    context.subscriptions.push(
      emitter,
      vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration('fork') || event.affectsConfiguration('http')) emitter.fire();
      }),
      keys.onDidChange(() => emitter.fire()),
    );
  }

  async modelAccess(): Promise<ModelAccess> {
    return { apiKey: await this.keys.get(), baseUrl: this.baseUrl(), model: this.model(), maxTokens: this.maxTokens(), approvalMode: this.approvalMode() };
  }

  model(): string {
    return config().get<string>('model')?.trim() || DEFAULT_MODEL;
  }

  /** `fork.provider` and its region/project settings, as runtime/configure takes them. */
  provider(): Pick<ConfigureParams, 'provider' | 'bedrock' | 'vertex'> {
    const name = config().get<string>('provider');
    const text = (key: string) => config().get<string>(key)?.trim() || undefined;
    if (name === 'bedrock') return { provider: 'bedrock', bedrock: { region: text('bedrock.region') } };
    if (name === 'vertex') return { provider: 'vertex', vertex: { projectId: text('vertex.projectId'), region: text('vertex.region') } };
    return { provider: 'anthropic' };
  }

  /** `fork.models`: the picker's list when the endpoint lists none (ids, or { id, name, contextWindow }). */
  fallbackModels(): ListedModel[] {
    const value = config().get<unknown[]>('models') ?? [];
    return value.flatMap(item => {
      if (typeof item === 'string' && item.trim()) return [{ id: item.trim(), name: item.trim() }];
      const m = item as { id?: unknown; name?: unknown; contextWindow?: unknown };
      if (m && typeof m.id === 'string' && m.id.trim()) {
        return [{ id: m.id, name: typeof m.name === 'string' ? m.name : m.id, ...(typeof m.contextWindow === 'number' ? { contextWindow: m.contextWindow } : {}) }];
      }
      return [];
    });
  }

  maxTokens(): number {
    const value = config().get<number>('maxTokens');
    return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : DEFAULT_MAX_TOKENS;
  }

  /** Undefined: neither the setting nor ANTHROPIC_BASE_URL names one (the SDK default applies). */
  baseUrl(): string | undefined {
    return resolveBaseUrl(config().get<string>('anthropic.baseUrl'), process.env);
  }

  /** The endpoint as users should read it in error messages. */
  displayBaseUrl(): string {
    return this.baseUrl() ?? DEFAULT_BASE_URL;
  }

  /** The turn count a fork inherits when none is given (`fork.defaultTurns`); invalid values fall back to all. */
  defaultTurns(): ForkTurns {
    const parsed = parseForkTurns(config().get<string>('defaultTurns'));
    return parsed.ok ? parsed.value : 'all';
  }

  contextWindow(): number {
    const value = config().get<number>('contextWindow');
    return typeof value === 'number' && value >= 1000 ? Math.floor(value) : 200_000;
  }

  autoCompactAt(): number {
    const value = config().get<number>('autoCompactAt');
    return typeof value === 'number' && value > 0 && value <= 1 ? value : 0.8;
  }

  /** Folder for fork worktrees (`fork.worktreeRoot`); '' lets the runtime put them beside the repository. */
  worktreeRoot(): string {
    return config().get<string>('worktreeRoot')?.trim() ?? '';
  }

  maxConcurrentForks(): number {
    const value = config().get<number>('maxConcurrent');
    return typeof value === 'number' && value >= 1 ? Math.floor(value) : DEFAULT_MAX_CONCURRENT_FORKS;
  }

  /** VS Code's http.proxy / http.proxyStrictSSL / http.noProxy, else HTTPS_PROXY and NO_PROXY: the detached runtime sees neither by itself. */
  proxy(): ProxySettings {
    const http = vscode.workspace.getConfiguration('http');
    const url = http.get<string>('proxy')?.trim() || process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy || '';
    const noProxy = [...(http.get<string[]>('noProxy') ?? []), process.env.NO_PROXY ?? process.env.no_proxy ?? ''].filter(Boolean).join(',');
    return { url, strictSSL: http.get<boolean>('proxyStrictSSL') !== false, ...(noProxy ? { noProxy } : {}) };
  }

  approvalMode(): ApprovalMode {
    const value = config().get<string>('approvalMode');
    return isApprovalMode(value) ? value : 'ask';
  }
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('fork');
}
