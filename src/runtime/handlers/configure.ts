// runtime/configure: the client's model access and tool settings, kept for that connection only.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { isApprovalMode } from '../../common/approval';
import { parseBudget } from '../../common/budget';
import { parsePriceOverrides } from '../../common/pricing';
import { parseSandboxSettings } from '../../common/sandbox';
import { runtimeConfigure } from '../../common/protocol/runtime';
import type { ConfigureParams, RuntimeInfo } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { applyRetention } from '../deletion';
import { sweepCheckpoints } from '../checkpoint/sweepCheckpoints';
import { log } from '../log';
import { mcpHub } from '../mcp/hub';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';

export function registerConfigure(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(runtimeConfigure, async (params: ConfigureParams): Promise<RuntimeInfo> => {
    if (params.approvalMode !== undefined && !isApprovalMode(params.approvalMode)) {
      throw new ResponseError(ErrorCodes.InvalidParams, `approvalMode must be ask, auto-edit or auto (got ${JSON.stringify(params.approvalMode)}).`);
    }
    const budget = params.thinkingBudgetTokens;
    if (budget !== undefined && (!Number.isInteger(budget) || (budget !== 0 && budget < 1024))) {
      throw new ResponseError(ErrorCodes.InvalidParams, `thinkingBudgetTokens must be 0 (off) or a whole number of at least 1024 (got ${JSON.stringify(budget)}).`);
    }
    if (params.cacheTtl !== undefined && params.cacheTtl !== '5m' && params.cacheTtl !== '1h') {
      throw new ResponseError(ErrorCodes.InvalidParams, `cacheTtl must be "5m" or "1h" (got ${JSON.stringify(params.cacheTtl)}).`);
    }
    if (params.effort !== undefined && !['', 'low', 'medium', 'high', 'xhigh', 'max'].includes(params.effort)) {
      throw new ResponseError(ErrorCodes.InvalidParams, `effort must be low, medium, high, xhigh or max (got ${JSON.stringify(params.effort)}).`);
    }
    if (params.sandbox !== undefined) {
      const { problems } = parseSandboxSettings(params.sandbox ?? {});
      if (problems.length > 0) throw new ResponseError(ErrorCodes.InvalidParams, `sandbox: ${problems.join('; ')}.`);
    }
    // Spending settings are checked before anything is kept: a bad one changes nothing.
    for (const [name, value] of [['fork.budget.perFork', params.budgetPerFork], ['fork.budget.perChat', params.budgetPerChat]] as const) {
      if (value === undefined || value === '') continue;
      const parsed = parseBudget(value);
      if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, `${name}: ${parsed.error}`);
    }
    if (params.prices !== undefined) {
      const { prices, errors } = parsePriceOverrides(params.prices);
      if (errors.length > 0) throw new ResponseError(ErrorCodes.InvalidParams, errors.join(' '));
      ctx.forks.setPrices(prices);
    }
    client.config = { ...client.config, ...dropUndefined(params) };
    // MCP http/sse traffic goes through the proxy of the client whose entry a server runs (read per request).
    if (params.mcpServers || params.proxy) mcpHub.configure(client.id, params.mcpServers, client.config.proxy);
    if (params.maxConcurrentForks !== undefined && params.maxConcurrentForks >= 1) ctx.forks.maxConcurrent = Math.floor(params.maxConcurrentForks);
    ctx.approvals.clientsChanged();
    if (params.retentionDays !== undefined && params.retentionDays > 0) {
      // Before revival: an expired fork is deleted, or revived, never both.
      for (const id of await applyRetention(ctx, params.retentionDays)) log(`deleted ${id}: not written to for ${params.retentionDays} days`);
      // Not awaited: checkpoints older than that are dropped in the background (rewinds before them say so).
      void sweepCheckpoints(ctx.store.storeDir, params.retentionDays);
    }
    const access = accessOf(client);
    if (access) ctx.forks.reviveWith(access);
    return ctx.info;
  });
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
