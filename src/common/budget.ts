// Spending limits: a budget is dollars or tokens. Tokens count every token a request
// processed: uncached input, cache reads and writes, and output. Pure.
import type { Usage } from './transcript';
import { inputTokens } from './transcript';

export type Budget = { usd: number } | { tokens: number };

export const BUDGET_FORMS = 'dollars such as "0.25" or "$0.25", or tokens such as "20000tokens"';

export function parseBudget(value: unknown): { ok: true; value: Budget } | { ok: false; error: string } {
  if (typeof value === 'object' && value !== null) {
    const v = value as Record<string, unknown>;
    if (typeof v.usd === 'number' && Number.isFinite(v.usd) && v.usd >= 0) return { ok: true, value: { usd: v.usd } };
    if (typeof v.tokens === 'number' && Number.isInteger(v.tokens) && v.tokens >= 0) return { ok: true, value: { tokens: v.tokens } };
    return { ok: false, error: `A budget is ${BUDGET_FORMS} (got ${JSON.stringify(value)}).` };
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return { ok: true, value: { usd: value } };
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    const tokens = /^(\d+)\s*tokens?$/.exec(text);
    if (tokens) return { ok: true, value: { tokens: Number(tokens[1]) } };
    const usd = /^\$?(\d+(?:\.\d+)?|\.\d+)\s*(?:usd|\$)?$/.exec(text);
    if (usd) return { ok: true, value: { usd: Number(usd[1]) } };
  }
  return { ok: false, error: `A budget is ${BUDGET_FORMS} (got ${JSON.stringify(value)}).` };
}

/**
 * Twice a budget that was reached, as text parseBudget takes: what the paused row offers to continue
 * with. Dollars keep two significant digits, so a budget of $0.001 suggests 0.002 rather than 0.
 */
export function raisedBudgetText(budget: Budget | undefined): string {
  if (!budget) return '';
  if ('tokens' in budget) return `${Math.max(1, budget.tokens * 2)}tokens`;
  const doubled = budget.usd * 2;
  if (doubled <= 0) return '';
  return String(doubled >= 1 ? Math.round(doubled * 100) / 100 : Number(doubled.toPrecision(2)));
}

export function budgetText(budget: Budget): string {
  return 'usd' in budget ? `$${budget.usd}` : `${budget.tokens} tokens`;
}

/** Every token of the usage. */
export function allTokens(usage: Usage): number {
  return inputTokens(usage) + usage.output_tokens;
}

/**
 * How much of the budget was spent, in the budget's unit: the usage's tokens, or `usd` (what pricing.ts
 * priced that usage at, request by request); undefined for dollars without a price.
 */
export function spentOf(budget: Budget, usage: Usage, usd: number | undefined): number | undefined {
  if ('tokens' in budget) return allTokens(usage);
  return usd;
}

/** Where a user gives prices, in words that fit the editor and the command line alike. */
export const HOW_TO_PRICE = 'set fork.prices (editor) or pass --prices FILE (command line)';

export function limitOf(budget: Budget): number {
  return 'usd' in budget ? budget.usd : budget.tokens;
}

/** True once the usage reached the budget: no further request may start. */
export function budgetReached(budget: Budget, usage: Usage, usd: number | undefined): boolean {
  const spent = spentOf(budget, usage, usd);
  return spent !== undefined && spent >= limitOf(budget);
}

/**
 * Why no further request may start under this budget, or undefined while it may. A dollar budget for a
 * model without a known price cannot be checked, so it stops too (nothing is spent unchecked).
 */
export function budgetStop(what: string, budget: Budget, usage: Usage, usd: number | undefined, model: string): string | undefined {
  const spent = spentOf(budget, usage, usd);
  if (spent === undefined) return `${what} is in dollars, but no price is known for ${model}: ${HOW_TO_PRICE}, or give the budget in tokens.`;
  if (spent < limitOf(budget)) return undefined;
  const shown = 'usd' in budget ? `$${spent.toFixed(4)}` : `${spent} tokens`;
  return `${what} of ${budgetText(budget)} is reached (spent ${shown}).`;
}
