// What a fork's start does before the fork has a run (docs/design.md §4.6, §4.7): the checks that refuse
// it, its workspace (a worktree is made first, so the bootstrap can record it), and its session created
// and written. A start that fails here leaves no worktree behind.
import { HOW_TO_PRICE, budgetText } from '../../common/budget';
import type { ModelPrice } from '../../common/pricing';
import { forkStateAt } from '../checkpoint/forkState';
import { discardForkWorktree } from '../git/worktree';
import { launchPolicy } from '../policy';
import { sandboxNotice } from '../sandbox/notice';
import { probeSandboxSupport } from '../sandbox/platform';
import type { HistorySnapshot, Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import { BudgetError, ForkModelError } from './forkContracts';
import type { ModelAccess, StartSpec } from './forkContracts';
import { inheritedSettingsRefusal } from './forkModelFit';
import { createForkSession } from './history/createFork';
import { snapshotUpTo } from './history/select';
import { TailParent } from './history/tailParent';
import { placeFork } from './workspace/isolation';

export interface CheckedStart { spec: StartSpec; snapshot: HistorySnapshot }

/**
 * Refuses a start that could not run (a budget in dollars for a model without a price, inherited settings
 * its model does not take, an unknown fork point), before any worktree is made; takes the parent's
 * history as it is now. The spec comes back with its budget (the fork's own, else the per-fork default).
 */
export function checkStart(spec: StartSpec, access: ModelAccess, priceOf: (model: string) => ModelPrice | undefined): CheckedStart {
  const budget = spec.budget ?? access.budgets?.perFork;
  const model = spec.model ?? spec.parent.header.settings.model;
  if (budget && 'usd' in budget && !priceOf(model)) {
    throw new BudgetError(`A budget of ${budgetText(budget)} needs a price, and none is known for ${model}: ${HOW_TO_PRICE}, or give the budget in tokens (e.g. 20000tokens).`);
  }
  const unfit = inheritedSettingsRefusal(spec.parent.header.settings, model);
  if (unfit) throw new ForkModelError(unfit);
  // No copy: the parent's history array only grows meanwhile, and the snapshot knows its length.
  const snapshot = spec.parent.snapshot();
  snapshotUpTo(snapshot.entries, spec.atEntryId);
  return { spec: { ...spec, budget }, snapshot };
}

/**
 * Makes the fork's workspace and its session; resolves once the session is written (store.started).
 * `createFileAfter`: the fork's own file is created once it settles (ForkManager: once the start burst is over).
 */
export async function writeForkStart(store: SessionStore, id: string, { spec, snapshot }: CheckedStart, access: ModelAccess, createFileAfter?: Promise<unknown>): Promise<Session> {
  const parent = spec.parent;
  const policy = launchPolicy(access);
  // Bubblewrap's trial run (a child process; usually done already, warmSandboxProbe) overlaps the worktree's creation.
  const probed = !policy.restricted && policy.sandbox && policy.sandbox.mode !== 'off' ? probeSandboxSupport() : undefined;
  const placement = await placeFork({
    kind: spec.kind, requested: spec.isolation, parentRoot: parent.header.root, id, name: spec.name, worktreeRoot: access.worktreeRoot,
    owner: store.storeDir,
    // Fork from here on an earlier message starts from that message's code (checkpoint/forkState.ts).
    // A parent known from its tail is forked at its end, from today's files.
    stateAt: () => (parent instanceof TailParent ? Promise.resolve(undefined) : forkStateAt(store.storeDir, parent, spec.atEntryId)),
  });
  try {
    // The sandbox notice of the directive needs its answer.
    if (probed) await probed;
    const session = createForkSession(store, { ...spec, id, snapshot, createFileAfter, isolation: placement.isolation, policy, sandboxNotice: policy.restricted ? undefined : sandboxNotice(policy.sandbox) }, placement.worktree);
    // Written before fork/start answers (its flush follows: startFlush.ts); the runtime's thread keeps serving meanwhile.
    await store.started(session.id);
    return session;
  } catch (error) {
    // Safe to drop: cleanup after a failed start: the start's own error is what the caller gets; a leftover worktree is pruned later.
    if (placement.worktree) await discardForkWorktree(placement.worktree).catch(() => undefined);
    throw error;
  }
}
