// Tournaments: a group of N worktree forks of one point with one directive. Each attempt is an ordinary
// fork (the manager's queue, fork.maxConcurrent, the sibling stagger); this adds the group: its record,
// the verify command each attempt runs when it ends, one budget for all attempts, stopping them together,
// and the verdict once every attempt has ended.
import { randomUUID } from 'node:crypto';
import { allTokens, budgetText, limitOf } from '../../../common/budget';
import type { ForkSummary } from '../../../common/forks';
import { isTerminal } from '../../../common/forks';
import type { TournamentCompareResult } from '../../../common/protocol/forks';
import type { TournamentSummary } from '../../../common/tournament';
import type { Usage } from '../../../common/transcript';
import { log } from '../../log';
import type { SessionStore } from '../../session/sessionStore';
import type { ForkManager } from '../forkManager';
import type { GroupHooks, ModelAccess, TournamentLauncher, TournamentStart } from '../forkContracts';
import { compareGroup } from './compare';
import { decideVerdict } from './decide';
import { defaultVerify } from './detectVerify';
import { TournamentLog } from './tournamentLog';
import type { TournamentRecord } from './tournamentLog';

export class TournamentNotFoundError extends Error {}

export const DIFFERENT_APPROACH_HINT = 'take a different approach from the one the first attempt is most likely to take.';

interface Group {
  summary: TournamentSummary;
  /** The starting client's access: the judge's request uses it. */
  access?: ModelAccess;
  judgeUsage?: Usage;
  deciding?: Promise<void>;
  judgeController?: AbortController;
  waiters: (() => void)[];
  /** Records of attempts that ended before the start record was written. */
  early: TournamentRecord[];
  started: boolean;
}

export class TournamentManager implements GroupHooks, TournamentLauncher {
  private readonly groups = new Map<string, Group>();
  readonly log: TournamentLog;

  constructor(readonly forks: ForkManager, readonly store: SessionStore) {
    this.log = new TournamentLog(store.storeDir);
    forks.groups = this;
  }

  /** Groups on disk, their verify results put back on the attempts (after the fork manager loaded its forks). */
  loadAll(): void {
    for (const loaded of this.log.loadAll()) {
      this.groups.set(loaded.summary.id, { summary: loaded.summary, judgeUsage: loaded.judgeUsage, waiters: [], early: [], started: true });
      for (const [forkId, verify] of loaded.verify) this.forks.restoreVerify(forkId, verify);
    }
  }

  async start(request: TournamentStart, access: ModelAccess): Promise<{ group: TournamentSummary; attempts: ForkSummary[] }> {
    const id = `t-${randomUUID()}`;
    const parentModel = request.spec.parent.header.settings.model;
    const models = request.models?.length ? Array.from({ length: request.attempts }, (_, i) => request.models![i % request.models!.length]) : undefined;
    const summary: TournamentSummary = {
      id, parentSessionId: request.spec.parent.id, directive: request.spec.directive, forkIds: [], createdAt: new Date().toISOString(),
      ...(models && models.some(m => m !== parentModel) ? { models } : {}),
      ...(request.verify ? { verify: request.verify } : {}),
      ...(request.budget ? { budget: request.budget } : {}),
    };
    const group: Group = { summary, access, waiters: [], early: [], started: false };
    this.groups.set(id, group);
    const attempts: ForkSummary[] = [];
    try {
      for (let attempt = 1; attempt <= request.attempts; attempt++) {
        const model = models?.[attempt - 1];
        const hint = request.differentApproaches && attempt > 1 ? DIFFERENT_APPROACH_HINT : undefined;
        const fork = await this.forks.start({
          ...request.spec, isolation: 'worktree', name: `${request.spec.name} #${attempt}`,
          ...(model && model !== parentModel ? { model } : {}),
          tournament: { groupId: id, attempt, of: request.attempts, ...(hint ? { hint } : {}) },
        }, access);
        attempts.push(fork);
        summary.forkIds.push(fork.id);
      }
    } catch (error) {
      // All or none: attempts already started stop (their worktrees stay for fork/discard, like any fork's).
      for (const fork of attempts) this.forks.cancel(fork.id);
      this.groups.delete(id);
      throw error;
    }
    this.log.append(id, { type: 'start', ...summary, forkIds: [...summary.forkIds] });
    group.started = true;
    for (const record of group.early.splice(0)) this.log.append(id, record);
    this.maybeDecide(group);
    return { group: { ...summary }, attempts };
  }

  defaultVerify(access: ModelAccess, root: string): string | undefined {
    return defaultVerify(access, root);
  }

  list(parentSessionId?: string): TournamentSummary[] {
    return [...this.groups.values()].map(g => ({ ...g.summary })).filter(s => !parentSessionId || s.parentSessionId === parentSessionId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  get(groupId: string): TournamentSummary {
    return this.groupOf(groupId).summary;
  }

  /** Stops every attempt (queued, running, waiting for approval or paused) and the judge. */
  cancel(groupId: string): string[] {
    const group = this.groupOf(groupId);
    group.judgeController?.abort();
    return group.summary.forkIds.filter(id => this.forks.cancel(id));
  }

  /**
   * The comparison. While the verdict is being decided (every attempt has just ended, so a client that saw the
   * last one end may ask now) it waits for it: the answer then has the verdict, which no later fork event would bring.
   */
  async compare(groupId: string): Promise<TournamentCompareResult> {
    const group = this.groupOf(groupId);
    if (group.deciding) await group.deciding;
    return compareGroup(this.forks, group.summary, group.judgeUsage);
  }

  /** Resolves with the comparison once the group has a verdict, or each attempt ended or paused. */
  async wait(groupId: string, access?: ModelAccess): Promise<TournamentCompareResult> {
    const group = this.groupOf(groupId);
    group.access ??= access;
    // A group read back from disk decides on the first wait (its starter's access is gone with the old runtime).
    this.maybeDecide(group);
    if (!this.settled(group)) {
      await new Promise<void>(resolve => group.waiters.push(resolve));
    }
    if (group.deciding) await group.deciding;
    return this.compare(groupId);
  }

  recordApplied(groupId: string, forkIds: string[]): void {
    const group = this.groupOf(groupId);
    const time = new Date().toISOString();
    this.log.append(groupId, { type: 'applied', time, forkIds });
    group.summary.appliedAt = time;
  }

  // GroupHooks: called by the fork manager for attempts' runs.

  verifyCommandOf(fork: ForkSummary): string | undefined {
    return fork.tournament && this.groups.get(fork.tournament.groupId)?.summary.verify;
  }

  budgetStopOf(fork: ForkSummary): string | undefined {
    const group = fork.tournament && this.groups.get(fork.tournament.groupId);
    const budget = group?.summary.budget;
    if (!group || !budget) return undefined;
    const attempts = this.attemptsOf(group);
    let spent = 0;
    if ('tokens' in budget) {
      spent = attempts.reduce((sum, a) => sum + allTokens(a.usage), 0);
    } else {
      const unpriced = attempts.find(a => !a.cost && allTokens(a.usage) > 0);
      if (unpriced) return `The tournament's budget is in dollars, but no price is known for ${unpriced.model}: set fork.prices, or give the budget in tokens.`;
      spent = attempts.reduce((sum, a) => sum + (a.cost?.usd ?? 0), 0);
    }
    if (spent < limitOf(budget)) return undefined;
    const shown = 'usd' in budget ? `$${spent.toFixed(4)}` : `${spent} tokens`;
    return `The tournament's budget of ${budgetText(budget)} for all ${fork.tournament!.of} attempts is reached (spent ${shown}).`;
  }

  attemptEnded(fork: ForkSummary): void {
    const group = fork.tournament && this.groups.get(fork.tournament.groupId);
    if (!group) return;
    if (fork.verify) this.append(group, { type: 'verify', forkId: fork.id, result: fork.verify });
    this.maybeDecide(group);
  }

  private append(group: Group, record: TournamentRecord): void {
    if (!group.started) {
      group.early.push(record);
      return;
    }
    try {
      this.log.append(group.summary.id, record);
    } catch (error) {
      log(`tournament ${group.summary.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private attemptsOf(group: Group): ForkSummary[] {
    return this.forks.list(group.summary.parentSessionId).filter(f => f.tournament?.groupId === group.summary.id);
  }

  private settled(group: Group): boolean {
    if (group.summary.verdict) return true;
    const attempts = this.attemptsOf(group);
    return group.started && attempts.length === group.summary.forkIds.length && attempts.every(a => isTerminal(a.state) || a.state === 'paused-budget');
  }

  /** Every attempt ended: rank them (verify, then the judge) once, and record the verdict. */
  private maybeDecide(group: Group): void {
    if (!group.started || group.summary.verdict || group.deciding) return;
    const attempts = this.attemptsOf(group);
    if (attempts.length < group.summary.forkIds.length) return;
    if (!attempts.every(a => isTerminal(a.state))) {
      if (this.settled(group)) for (const resolve of group.waiters.splice(0)) resolve();
      return;
    }
    group.judgeController = new AbortController();
    group.deciding = decideVerdict(this.store, attempts, group.access, group.judgeController.signal)
      .then(({ verdict, judgeUsage, judgeModel }) => {
        if (judgeUsage && judgeModel) {
          group.judgeUsage = judgeUsage;
          this.append(group, { type: 'judge', usage: judgeUsage, model: judgeModel });
        }
        group.summary.verdict = verdict;
        this.append(group, { type: 'verdict', verdict });
      })
      .catch(error => log(`tournament ${group.summary.id}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        group.deciding = undefined;
        for (const resolve of group.waiters.splice(0)) resolve();
      });
  }

  private groupOf(groupId: string): Group {
    const group = this.groups.get(groupId);
    if (!group) throw new TournamentNotFoundError(`No tournament with id ${groupId}.`);
    return group;
  }
}
