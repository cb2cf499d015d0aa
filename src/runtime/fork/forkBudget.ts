// Fork spending against budgets (fork.budget.perFork, fork.budget.perChat) and its cost in dollars: every
// figure is a sum of pricing.ts's priceRequest over the requests billed, each at its own day's price.
import type { Usage } from '../../common/transcript';
import { addUsage, zeroUsage } from '../../common/transcript';
import { allTokens, budgetStop } from '../../common/budget';
import type { CostFigures, PriceOverrides } from '../../common/pricing';
import { addCosts, priceFor, priceRequests } from '../../common/pricing';
import type { SessionStore } from '../session/sessionStore';
import type { ForkRun } from './trackedFork';

/** A chat's spending; `cost` is undefined when some part of it has usage but no known price. */
export interface ChatSpend { usage: Usage; cost?: CostFigures }

export class ForkSpending {
  constructor(
    private readonly store: SessionStore,
    private readonly runs: () => Iterable<ForkRun>,
    private readonly prices: () => PriceOverrides,
  ) {}

  /** A chat's spending: its own session's and every fork's of it (each at its own model's price). */
  chatSpend(parentSessionId: string): ChatSpend {
    // Budgets are checked synchronously before each request: the store has the chat's figures without
    // loading it (an evicted chat's are kept; a fork about to run had them read, see ForkManager). A deleted
    // chat counts zero; its forks still count.
    let usage = this.store.spentOf(parentSessionId) ?? zeroUsage();
    const own = this.store.billsOf(parentSessionId);
    let cost = own ? priceRequests(own.model, own.bills, this.prices()) : { usd: 0, uncachedUsd: 0 };
    let unpriced = own !== undefined && own.bills.length > 0 && cost === undefined;
    for (const run of this.runs()) {
      if (run.summary.parentSessionId !== parentSessionId) continue;
      usage = addUsage(usage, run.summary.usage);
      if (run.summary.cost) cost = addCosts(cost, run.summary.cost);
      else if (allTokens(run.summary.usage) > 0) unpriced = true;
    }
    return { usage, ...(unpriced || !cost ? {} : { cost }) };
  }

  /** Why the fork (running `model`) may not make another request (its budget, or its chat's), if it may not. */
  stopOf(run: ForkRun, model: string): string | undefined {
    // Nothing spent yet costs nothing, where the model has a price at all.
    const unspent = allTokens(run.summary.usage) === 0 && priceFor(model, this.prices()) ? 0 : undefined;
    const own = run.summary.budget && budgetStop('Its budget', run.summary.budget, run.summary.usage, run.summary.cost?.usd ?? unspent, model);
    if (own) return own;
    const perChat = run.access?.budgets?.perChat;
    if (!perChat) return undefined;
    const chat = this.chatSpend(run.summary.parentSessionId);
    return budgetStop("The chat's budget (fork.budget.perChat)", perChat, chat.usage, chat.cost?.usd, model);
  }

  /** Every fork priced again (new prices); `changed` hears of each whose figure moved. */
  repriceAll(modelOf: (forkId: string) => string | undefined, changed: (run: ForkRun) => void): void {
    for (const run of this.runs()) {
      const model = run.summary.model ?? modelOf(run.id) ?? this.store.billsOf(run.id)?.model;
      if (!model) continue;
      const before = run.summary.cost?.usd;
      this.refreshCost(run, model);
      if (before !== run.summary.cost?.usd) changed(run);
    }
  }

  /** The summary's model and cost brought up to date with its requests and the prices in force. */
  refreshCost(run: ForkRun, model: string): void {
    run.summary.model = model;
    const own = this.store.billsOf(run.id);
    // A fork whose session was never read since start-up has no requests to price yet: its cost stays.
    if (!own && allTokens(run.summary.usage) > 0) return;
    const cost = priceRequests(model, own?.bills ?? [], this.prices());
    run.summary.cost = cost && { usd: cost.usd, uncachedUsd: cost.uncachedUsd };
  }
}
