// Connects the CLI to the runtime serving its store (starting one if none runs) and configures it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectOrStart } from '../client/launch';
import { connectRpc } from '../client/rpcClient';
import type { RuntimeClient } from '../client/rpcClient';
import { isApprovalMode } from '../common/approval';
import type { ApprovalMode } from '../common/approval';
import { sendRequest } from '../common/protocol/endpoint';
import { setupCommands } from '../common/worktreeOptions';
import { runtimeConfigure } from '../common/protocol/runtime';
import { UsageError } from './args';
import { ensureDemoModel } from './demoModel';
import type { ParsedArgs } from './args';

export function storeDirOf(args: ParsedArgs): string {
  return path.resolve(args.flags.get('store') ?? process.env.FORK_AGENTS_HOME ?? path.join(os.homedir(), '.fork-agents'));
}

export function approvalOf(args: ParsedArgs): ApprovalMode {
  const mode = args.flags.get('approval') ?? 'ask';
  if (!isApprovalMode(mode)) throw new UsageError(`--approval must be ask, auto-edit or auto (got ${JSON.stringify(mode)})`);
  return mode;
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

export async function connectCli(args: ParsedArgs): Promise<RuntimeClient> {
  const storeDir = storeDirOf(args);
  const runtimeScript = process.env.FORK_AGENTS_RUNTIME_SCRIPT ?? path.join(__dirname, 'runtime.js');
  const socket = await connectOrStart({ storeDir, runtimeScript });
  const demo = args.switches.has('demo') ? await ensureDemoModel(storeDir) : undefined;
  const client = await connectRpc(socket, 'cli');
  await sendRequest(client.endpoint, runtimeConfigure, {
    apiKey: demo?.apiKey ?? (process.env.ANTHROPIC_API_KEY || undefined),
    baseUrl: demo?.url ?? (process.env.ANTHROPIC_BASE_URL || undefined),
    model: args.flags.get('model'),
    approvalMode: args.flags.has('approval') ? approvalOf(args) : undefined,
    worktreeRoot: args.flags.has('worktree-root') ? path.resolve(args.flags.get('worktree-root')!) : undefined,
    // The user typed the command: it runs in each new worktree of the forks this connection starts.
    worktree: args.flags.has('worktree-setup') ? { setup: setupCommands(args.flags.get('worktree-setup')) } : undefined,
    thinkingBudgetTokens: args.flags.has('thinking-budget') ? wholeNumber(args, 'thinking-budget') : undefined,
    cacheTtl: args.flags.has('cache-ttl') ? cacheTtlOf(args) : undefined,
  });
  return client;
}

function wholeNumber(args: ParsedArgs, flag: string): number {
  const text = args.flags.get(flag) ?? '';
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${flag} must be a whole number of tokens (got ${JSON.stringify(text)})`);
  return Number(text);
}

function cacheTtlOf(args: ParsedArgs): '5m' | '1h' {
  const ttl = args.flags.get('cache-ttl');
  if (ttl !== '5m' && ttl !== '1h') throw new UsageError(`--cache-ttl must be 5m or 1h (got ${JSON.stringify(ttl)})`);
  return ttl;
}
