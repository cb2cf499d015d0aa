// The `fork.*` settings plus the key: everything the runtime's `runtime/configure` and the LM provider need.
import * as vscode from 'vscode';
import { isApprovalMode } from '../common/approval';
import type { ApprovalMode } from '../common/approval';
import { DEFAULT_MAX_CONCURRENT_FORKS, DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from '../common/defaults';
import { parseForkTurns } from '../common/forkTurns';
import type { ForkTurns } from '../common/forkTurns';
import { parsePortRange, setupCommands } from '../common/worktreeOptions';
import type { WorktreeOptions } from '../common/worktreeOptions';
import { SANDBOX_MODES, isSandboxMode, parseSandboxSettings } from '../common/sandbox';
import type { SandboxMode, SandboxSettings } from '../common/sandbox';
import { DEFAULT_BASE_URL, resolveBaseUrl } from './modelAccess';
import type { ApiKeyStore } from './secrets';
import { parseBudget } from '../common/budget';
import { parsePriceOverrides } from '../common/pricing';
import type { PriceOverrides } from '../common/pricing';
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
      // Restricted Mode ends: the runtime may let the agent write and run again (see restricted()).
      vscode.workspace.onDidGrantWorkspaceTrust(() => emitter.fire()),
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
    const parsed = parseForkTurns(config().get<string>('defaultTurns'), 'user');
    return parsed.ok ? parsed.value : 'all';
  }

  /** fork.contextWindow; undefined (0 or unset): the model's own window from the model table. */
  contextWindow(): number | undefined {
    const value = config().get<number>('contextWindow');
    return typeof value === 'number' && value >= 1000 ? Math.floor(value) : undefined;
  }

  autoCompactAt(): number {
    const value = config().get<number>('autoCompactAt');
    return typeof value === 'number' && value > 0 && value <= 1 ? value : 0.8;
  }

  /** Folder for fork worktrees (`fork.worktreeRoot`); '' lets the runtime put them beside the repository. */
  worktreeRoot(): string {
    return config().get<string>('worktreeRoot')?.trim() ?? '';
  }

  /** What new fork worktrees get (`fork.worktree.*`); setup, timeout and ports are read at application scope only. */
  worktreeOptions(): WorktreeOptions {
    const cfg = config();
    const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : []);
    // A command a workspace's settings name must never run: only the user's own (global) value counts.
    const setup = setupCommands(cfg.inspect('worktree.setup')?.globalValue);
    const timeout = cfg.inspect<number>('worktree.setupTimeout')?.globalValue;
    const ports = cfg.inspect<string>('worktree.ports')?.globalValue;
    const block = cfg.inspect<number>('worktree.portBlock')?.globalValue;
    return {
      include: strings(cfg.get('worktree.include')),
      link: strings(cfg.get('worktree.link')),
      copyMode: cfg.get<string>('worktree.copyMode') === 'clone' ? 'clone' : 'copy',
      setup,
      setupTimeoutMs: typeof timeout === 'number' && timeout >= 1 ? Math.floor(timeout * 1000) : undefined,
      portRange: typeof ports === 'string' && typeof parsePortRange(ports) !== 'string' ? ports : undefined,
      portBlock: typeof block === 'number' && block >= 1 ? Math.floor(block) : undefined,
    };
  }

  /** fork.sandbox.*: a workspace can make the mode stricter and add to denyRead; network and the chat's opt-in are the user's alone. */
  sandbox(): SandboxSettings {
    const cfg = config();
    const mode = cfg.inspect<string>('sandbox.mode');
    const own: SandboxMode = isSandboxMode(mode?.globalValue) ? mode.globalValue : 'auto';
    const strictest = [mode?.workspaceValue, mode?.workspaceFolderValue].filter(isSandboxMode)
      .reduce<SandboxMode>((a, b) => (SANDBOX_MODES.indexOf(b) > SANDBOX_MODES.indexOf(a) ? b : a), own);
    const deny = cfg.inspect<string[]>('sandbox.denyRead');
    const { settings } = parseSandboxSettings({
      mode: strictest,
      parent: cfg.inspect<boolean>('sandbox.parent')?.globalValue === true,
      denyRead: [deny?.globalValue, deny?.workspaceValue, deny?.workspaceFolderValue].flatMap(v => (Array.isArray(v) ? v : [])),
      allowNetwork: cfg.inspect<string[]>('sandbox.allowNetwork')?.globalValue,
    });
    return settings;
  }

  maxConcurrentForks(): number {
    const value = config().get<number>('maxConcurrent');
    return typeof value === 'number' && value >= 1 ? Math.floor(value) : DEFAULT_MAX_CONCURRENT_FORKS;
  }

  /** `fork.retention.days`: 0 keeps everything. */
  retentionDays(): number {
    const value = config().get<number>('retention.days');
    return typeof value === 'number' && value > 0 ? value : 0;
  }

  /** VS Code's http.proxy / http.proxyStrictSSL / http.noProxy, else HTTPS_PROXY and NO_PROXY: the detached runtime sees neither by itself. */
  proxy(): ProxySettings {
    const http = vscode.workspace.getConfiguration('http');
    const url = http.get<string>('proxy')?.trim() || process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy || '';
    const noProxy = [...(http.get<string[]>('noProxy') ?? []), process.env.NO_PROXY ?? process.env.no_proxy ?? ''].filter(Boolean).join(',');
    return { url, strictSSL: http.get<boolean>('proxyStrictSSL') !== false, ...(noProxy ? { noProxy } : {}) };
  }

  /**
   * Restricted Mode: in an untrusted workspace the agent may read, never write files or run
   * commands. Settings that send the key, loosen approvals or choose where code runs are application- or machine-scoped,
   * so a repository's .vscode/settings.json cannot set them at all.
   */
  restricted(): boolean {
    return !vscode.workspace.isTrusted;
  }

  /** `fork.thinking.budgetTokens`: 0 (off) or at least 1,024 tokens; anything else is off. */
  thinkingBudgetTokens(): number {
    const value = config().get<number>('thinking.budgetTokens');
    return typeof value === 'number' && Number.isInteger(value) && value >= 1024 ? value : 0;
  }

  /** `fork.effort`: '' (the model's default) or an effort level; anything else is the default. */
  effort(): '' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' {
    const value = config().get<string>('effort');
    return value === 'low' || value === 'medium' || value === 'high' || value === 'xhigh' || value === 'max' ? value : '';
  }

  /** `fork.cacheTtl`: the prompt-cache TTL new sessions use (forks keep their parent's). */
  cacheTtl(): '5m' | '1h' {
    return config().get<string>('cacheTtl') === '1h' ? '1h' : '5m';
  }

  /**
   * fork.prices, fork.budget.* and fork.maxForksPerTurn as runtime/configure takes them. Invalid values
   * are left out (and named in `problems`), so one typo never keeps the key from reaching the runtime.
   */
  spending(): { prices: PriceOverrides; budgetPerFork: string; budgetPerChat: string; maxForksPerTurn: number; problems: string[] } {
    const { prices, errors } = parsePriceOverrides(config().get('prices'));
    const problems = [...errors];
    const budget = (name: string) => {
      const value = config().get<string>(name)?.trim() ?? '';
      if (value === '') return '';
      const parsed = parseBudget(value);
      if (parsed.ok) return value;
      problems.push(`fork.${name}: ${parsed.error}`);
      return '';
    };
    const perTurn = config().get<number>('maxForksPerTurn');
    return {
      prices,
      budgetPerFork: budget('budget.perFork'),
      budgetPerChat: budget('budget.perChat'),
      maxForksPerTurn: typeof perTurn === 'number' && perTurn >= 1 ? Math.floor(perTurn) : 0,
      problems,
    };
  }

  /** fork.tournament.verify: '' means the runtime detects the project's test script. */
  tournamentVerify(): string {
    return config().get<string>('tournament.verify')?.trim() ?? '';
  }

  approvalMode(): ApprovalMode {
    const value = config().get<string>('approvalMode');
    return isApprovalMode(value) ? value : 'ask';
  }
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('fork');
}
