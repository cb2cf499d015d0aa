// Connects the CLI to the runtime serving its store (starting one if none runs) and configures it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectOrStart } from '../client/launch';
import { connectRpc } from '../client/rpcClient';
import { ensureStoreDir } from '../ipc/privateFs';
import type { RuntimeClient } from '../client/rpcClient';
import { isApprovalMode } from '../common/approval';
import { retiredModelText, retiredToday } from '../common/models';
import type { ApprovalMode } from '../common/approval';
import { sendRequest } from '../common/protocol/endpoint';
import { setupCommands } from '../common/worktreeOptions';
import { isSandboxMode, parseSandboxSettings } from '../common/sandbox';
import type { SandboxSettings } from '../common/sandbox';
import { runtimeConfigure } from '../common/protocol/runtime';
import type { ConfigureParams, ProxySettings } from '../common/protocol/runtime';
import type { McpServerConfig } from '../common/protocol/mcp';
import { UsageError } from './args';
import { ensureDemoModel } from './demoModel';
import { cliMcpServers, userMcpPath } from './mcpServers';
import { cliProxy } from './proxy';
import { cliPrices } from './pricesFile';
import { chatRootOf, warnUnconfigured } from './sessionMcp';
import type { ParsedArgs } from './args';

/** FORK_AGENTS_PROVIDER=bedrock|vertex; regions and projects come from the SDKs' own variables (AWS_REGION, CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID). */
function cliProvider(env: NodeJS.ProcessEnv): Pick<ConfigureParams, 'provider'> {
  const name = env.FORK_AGENTS_PROVIDER?.trim();
  if (name === undefined || name === '') return {};
  if (name !== 'anthropic' && name !== 'bedrock' && name !== 'vertex') throw new UsageError(`FORK_AGENTS_PROVIDER must be anthropic, bedrock or vertex (got ${JSON.stringify(name)})`);
  return { provider: name };
}

/** Whether this command gives the runtime model access of its own: the demo model, a key, or a cloud provider's credentials. */
export function cliGivesAccess(args: ParsedArgs): boolean {
  const { provider } = cliProvider(process.env);
  return args.switches.has('demo') || Boolean(process.env.ANTHROPIC_API_KEY) || provider === 'bedrock' || provider === 'vertex';
}

export function storeDirOf(args: ParsedArgs): string {
  return path.resolve(args.flags.get('store') ?? process.env.FORK_AGENTS_HOME ?? path.join(os.homedir(), '.fork-agents'));
}

export function approvalOf(args: ParsedArgs): ApprovalMode {
  const mode = args.flags.get('approval') ?? 'ask';
  if (!isApprovalMode(mode)) throw new UsageError(`--approval must be ask, auto-edit or auto (got ${JSON.stringify(mode)})`);
  return mode;
}

/** --sandbox and --allow-network; absent: the runtime's default (auto, no network). */
function sandboxOf(args: ParsedArgs): SandboxSettings | undefined {
  if (!args.flags.has('sandbox') && !args.flags.has('allow-network')) return undefined;
  const mode = args.flags.get('sandbox') ?? 'auto';
  if (!isSandboxMode(mode)) throw new UsageError(`--sandbox must be auto, required or off (got ${JSON.stringify(mode)})`);
  const allowNetwork = (args.flags.get('allow-network') ?? '').split(',').map(h => h.trim()).filter(Boolean);
  const { settings, problems } = parseSandboxSettings({ mode, allowNetwork });
  if (problems.length) throw new UsageError(problems.join('; ').replace('fork.sandbox.allowNetwork', '--allow-network'));
  return settings;
}

export function cwdOf(args: ParsedArgs, required: boolean): string | undefined {
  const cwd = args.flags.get('cwd');
  if (cwd === undefined) {
    if (required) throw new UsageError('--cwd DIR is required');
    return undefined;
  }
  const resolved = path.resolve(cwd);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory()) throw new UsageError(`--cwd ${cwd} is not a folder`);
  return fs.realpathSync(resolved);
}

/**
 * `mcp`: the folder whose MCP servers (user + trusted repository ones) a new session gets, or the existing
 * session whose tools will run (its chat's folder, else --cwd), so a restarted runtime has its servers again.
 */
/**
 * --model or --models naming a model retired on the Claude API: refused before a runtime starts, with the
 * day and what to do, instead of a chat or fork whose every request the API refuses (models.ts `retiredToday`).
 */
function refuseRetiredModels(args: ParsedArgs): void {
  const { provider } = cliProvider(process.env);
  const named = [['--model', args.flags.get('model')], ...(args.flags.get('models') ?? '').split(',').map(id => ['--models', id])];
  for (const [flag, raw] of named) {
    const id = raw?.trim();
    const day = id ? retiredToday(id, provider) : undefined;
    if (id && day) throw new UsageError(`${flag}: ${retiredModelText(id, day)}`);
  }
}

export async function connectCli(args: ParsedArgs, mcp?: string | { sessionId: string }): Promise<RuntimeClient> {
  refuseRetiredModels(args);
  const storeDir = storeDirOf(args);
  const prices = cliPrices(args, process.env); // a bad file exits 2 before a runtime starts
  const session = sessionSettingsOf(args); // so do bad settings of a new session
  const runtimeScript = process.env.FORK_AGENTS_RUNTIME_SCRIPT ?? path.join(__dirname, 'runtime.js');
  // The demo model and the runtime start side by side, and the handshake overlaps the demo model's start:
  // only `runtime/configure` needs its address.
  ensureStoreDir(storeDir); // checked before the demo model writes its files there
  const demoStarting = args.switches.has('demo') ? ensureDemoModel(storeDir) : undefined;
  // Safe to drop: awaited below; this only keeps a failure while the runtime starts from going unobserved.
  demoStarting?.catch(() => undefined);
  const socket = await connectOrStart({ storeDir, runtimeScript, onNotice: message => process.stderr.write(`fork-agents: ${message}\n`) });
  const client = await connectRpc(socket, 'cli');
  const demo = await demoStarting;
  let mcpServers: McpServerConfig[] | undefined;
  const forSession = typeof mcp === 'object' ? mcp.sessionId : undefined;
  const mcpRoot = typeof mcp === 'string' ? mcp : forSession ? cwdOf(args, false) ?? await chatRootOf(client, forSession) : undefined;
  if (mcpRoot) {
    const found = await cliMcpServers(mcpRoot, args.switches.has('trust-mcp'));
    for (const problem of found.problems) process.stderr.write(`fork-agents: ${problem}\n`);
    found.skipped.forEach((skipped, i) => process.stderr.write(
      `fork-agents: MCP server ${skipped} from .vscode/mcp.json not started (pass --trust-mcp to run it, or trust exactly this entry: add ${JSON.stringify(found.skippedFingerprints[i])} to "trustedWorkspaceServers" in ${userMcpPath()})\n`));
    mcpServers = found.servers;
  }
  await sendRequest(client.endpoint, runtimeConfigure, {
    apiKey: demo?.apiKey ?? (process.env.ANTHROPIC_API_KEY || undefined),
    baseUrl: demo?.url ?? (process.env.ANTHROPIC_BASE_URL || undefined),
    model: args.flags.get('model'),
    approvalMode: args.flags.has('approval') ? approvalOf(args) : undefined,
    sandbox: sandboxOf(args),
    worktreeRoot: args.flags.has('worktree-root') ? path.resolve(args.flags.get('worktree-root')!) : undefined,
    mcpServers,
    proxy: demo ? bypassFor(cliProxy(process.env), demo.url) : cliProxy(process.env),
    // The demo model speaks the Anthropic API whatever FORK_AGENTS_PROVIDER says.
    ...(demo ? { provider: 'anthropic' as const } : cliProvider(process.env)),
    // The user typed the command: it runs in each new worktree of the forks this connection starts.
    worktree: args.flags.has('worktree-setup') ? { setup: setupCommands(args.flags.get('worktree-setup')) } : undefined,
    ...session,
    prices,
  });
  if (forSession) await warnUnconfigured(client, forSession);
  return client;
}

/** The local demo model is never reached through the user's proxy. */
function bypassFor(proxy: ProxySettings, url: string): ProxySettings {
  if (!proxy.url) return proxy;
  return { ...proxy, noProxy: [proxy.noProxy, new URL(url).hostname].filter(Boolean).join(',') };
}

/** --thinking-budget, --cache-ttl and --effort of a new session, checked (a UsageError) before anything starts. */
export function sessionSettingsOf(args: ParsedArgs): Pick<ConfigureParams, 'thinkingBudgetTokens' | 'cacheTtl' | 'effort'> {
  return {
    thinkingBudgetTokens: args.flags.has('thinking-budget') ? wholeNumber(args, 'thinking-budget') : undefined,
    cacheTtl: args.flags.has('cache-ttl') ? cacheTtlOf(args) : undefined,
    effort: args.flags.has('effort') ? effortOf(args) : undefined,
  };
}

function wholeNumber(args: ParsedArgs, flag: string): number {
  const text = args.flags.get(flag) ?? '';
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${flag} must be a whole number of tokens (got ${JSON.stringify(text)})`);
  return Number(text);
}

function effortOf(args: ParsedArgs): 'low' | 'medium' | 'high' | 'xhigh' | 'max' {
  const effort = args.flags.get('effort');
  if (effort !== 'low' && effort !== 'medium' && effort !== 'high' && effort !== 'xhigh' && effort !== 'max') {
    throw new UsageError(`--effort must be low, medium, high, xhigh or max (got ${JSON.stringify(effort)})`);
  }
  return effort;
}

function cacheTtlOf(args: ParsedArgs): '5m' | '1h' {
  const ttl = args.flags.get('cache-ttl');
  if (ttl !== '5m' && ttl !== '1h') throw new UsageError(`--cache-ttl must be 5m or 1h (got ${JSON.stringify(ttl)})`);
  return ttl;
}
