// Fork spending against budgets (fork.budget.perFork, fork.budget.perChat) and its cost in dollars.
import type { Usage } from '../../common/transcript';
import { addUsage, zeroUsage } from '../../common/transcript';
import { budgetStop } from '../../common/budget';
import type { ModelPrice } from '../../common/pricing';
import { costFigures } from '../../common/pricing';
import type { SessionStore } from '../session/sessionStore';
import type { ForkRun } from './trackedFork';

export class ForkSpending {
  constructor(
    private readonly store: SessionStore,
    private readonly runs: () => Iterable<ForkRun>,
    private readonly priceOf: (model: string) => ModelPrice | undefined,
  ) {}

  /** A chat's spending: its own session's and every fork's of it. */
  chatSpent(parentSessionId: string): Usage {
    // Budgets are checked synchronously before each request: the store has the chat's figure without
    // loading it (an evicted chat's is kept; a fork about to run had it read, see ForkManager). A deleted
    // chat counts zero; its forks still count.
    let total = this.store.spentOf(parentSessionId) ?? zeroUsage();
    for (const run of this.runs()) if (run.summary.parentSessionId === parentSessionId) total = addUsage(total, run.summary.usage);
    return total;
  }

  /** Why the fork (running `model`) may not make another request (its budget, or its chat's), if it may not. */
  stopOf(run: ForkRun, model: string): string | undefined {
    const price = this.priceOf(model);
    const own = run.summary.budget && budgetStop('Its budget', run.summary.budget, run.summary.usage, price, model);
    if (own) return own;
    const perChat = run.access?.budgets?.perChat;
    return perChat && budgetStop("The chat's budget (fork.budget.perChat)", perChat, this.chatSpent(run.summary.parentSessionId), price, model);
  }

  /** The summary's model and cost brought up to date with its usage. */
  refreshCost(run: ForkRun, model: string): void {
    run.summary.model = model;
    run.summary.cost = costFigures(run.summary.usage, this.priceOf(run.summary.model));
  }
}
