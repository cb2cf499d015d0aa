// Fork spending against budgets (fork.budget.perFork, fork.budget.perChat) and its cost in dollars.
import type { Usage } from '../../common/transcript';
import { addUsage, zeroUsage } from '../../common/transcript';
import { budgetStop } from '../../common/budget';
import type { ModelPrice } from '../../common/pricing';
import { costFigures } from '../../common/pricing';
import type { SessionStore } from '../session/sessionStore';
import type { ForkRun } from './forkRun';

export class ForkSpending {
  /** What each chat had spent when last in memory (see chatSpent). */
  private readonly chatSpentSeen = new Map<string, Usage>();

  constructor(
    private readonly store: SessionStore,
    private readonly runs: () => Iterable<ForkRun>,
    private readonly priceOf: (model: string) => ModelPrice | undefined,
  ) {}

  /** A chat's spending: its own session's and every fork's of it. */
  chatSpent(parentSessionId: string): Usage {
    // Budgets are checked synchronously before each request; a chat evicted from memory (idle) cannot have
    // spent more since it was last seen, so its last known figure stands. One never seen since start-up is
    // read in the background for the next check. A deleted chat counts zero; its forks still count.
    const chat = this.store.loaded(parentSessionId);
    if (chat) this.chatSpentSeen.set(parentSessionId, chat.spent);
    else if (!this.chatSpentSeen.has(parentSessionId)) {
      this.store.get(parentSessionId).then(s => void this.chatSpentSeen.set(parentSessionId, s.spent), () => undefined);
    }
    let total = this.chatSpentSeen.get(parentSessionId) ?? zeroUsage();
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
