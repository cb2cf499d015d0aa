// Runs forks and subagents in the background (docs/design.md §4.6): detached start, cancel, continue,
// reports to clients and to the parent. Its parts: the run queue (forkRunQueue.ts), how a run ends
// (forkEnd.ts), what its events change (forkProgress.ts), start-up and revival (forksAtStartup.ts).
import type { AgentEvent } from '../../common/agentEvents';
import type { ForkSummary, ForkState, ForkWorktree } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import { forkEvent, forkState } from '../../common/protocol/forks';
import type { ForkSendResult } from '../../common/protocol/forks';
import type { Budget } from '../../common/budget';
import type { ModelPrice, PriceOverrides } from '../../common/pricing';
import { priceFor } from '../../common/pricing';
import { cacheSteps } from '../cache/sessionCache';
import type { ApprovalRouter } from '../approvals';
import type { ClientConnection } from '../clientConnection';
import { sendPolicy } from '../policy';
import type { Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import { newForkId } from './history/createFork';
import { PortBlocks } from './workspace/forkPorts';
import { ForkSpending } from './forkBudget';
import type { ChatSpend } from './forkBudget';
import { heldSession, mayContinue, newRun } from './trackedFork';
import type { ForkRun } from './trackedFork';
import { runFork } from './runFork';
import { WorktreeJanitor } from './workspace/worktreeJanitor';
import { renderForkNotification } from './notification';
import { claimAnnouncement, markDelivered, undelivered } from './forkReports';
import { outputHistory } from './outputHistory';
import { recordProgress } from './forkProgress';
import { endWithOutcome, failRun, finishRun, releaseSession } from './forkEnd';
import type { RunEndContext } from './forkEnd';
import { ForkRunQueue } from './forkRunQueue';
import { loadForksFromDisk, prepareRevival } from './forksAtStartup';
import { PrefixWriters } from './stagger';
import { StartBurst } from './startBurst';
import { checkStart, writeForkStart } from './writeForkStart';
import { holdUntilFlushed, startFlushed } from './startFlush';
import { BudgetError, ForkBusyError, ForkNotFoundError } from './forkContracts';
import type { ForkLauncher, GroupHooks, ModelAccess, StartSpec } from './forkContracts';
import type { VerifyResult } from '../../common/tournament';

export class ForkManager implements ForkLauncher {
  private readonly forks = new Map<string, ForkRun>();
  // fork/start answers once the fork is written and queued; its run (sandbox, workspace, the first request's
  // body) is work that can follow, so it begins after that answer is written — and after the answers of
  // siblings started with it (startBurst.ts). Run synchronously from start, the first forks' runs held the
  // answers of their siblings (a trace of 50 siblings: 5–25 ms between a fork's durability and its answer,
  // each). A fork cancelled meanwhile is already ended. Admitted, it is "running" at once (one state notice),
  // so the answer and every client say what it is doing rather than "queued" for a fork that has a slot.
  private readonly queue = new ForkRunQueue(run => {
    // The one "running" notice of a run: execute() does not repeat it.
    run.summary.endedProcesses = undefined;
    this.setState(run, 'running');
    return this.burst.settled()
      .then(() => (isTerminal(run.summary.state) ? undefined : this.execute(run)))
      .catch(error => failRun(this.ending(), run, error));
  });
  /** fork/starts being served: runs begin once they are answered. */
  private readonly burst = new StartBurst();
  /** The summary each run's clients were told last (broadcastChange). */
  private readonly lastNotice = new WeakMap<ForkRun, ForkSummary>();
  /** Ids of forks being created (worktree first, then the bootstrap): start-up pruning must spare them. */
  private readonly pending = new Set<string>();
  private readonly ports = new PortBlocks();
  readonly janitor: WorktreeJanitor;
  /** First requests of sibling forks in flight, by shared prefix (the stagger, docs/design.md §4.5). */
  private readonly prefixWriters = new PrefixWriters();
  /** fork.prices of the client that configured last (the table covers the rest). */
  prices: PriceOverrides = {};
  private readonly spending: ForkSpending;
  /** Tournaments: set by the tournament manager. */
  groups?: GroupHooks;

  constructor(
    private readonly store: SessionStore,
    private readonly clients: ReadonlySet<ClientConnection>,
    private readonly approvals: ApprovalRouter,
  ) {
    this.janitor = new WorktreeJanitor(store, () => this.liveForkIds());
    this.spending = new ForkSpending(store, () => this.forks.values(), () => this.prices);
  }

  /**
   * Detached: returns as soon as the bootstrap record is written (a crash keeps it; startFlush.ts), unless a
   * model's tool call started it: its result names the fork in the parent's next request, so that waits for
   * the flush too. A worktree fork's worktree is created first, so the bootstrap can record it; a fork that
   * fails to start leaves no worktree behind.
   */
  async start(spec: StartSpec, access: ModelAccess): Promise<ForkSummary> {
    const id = newForkId();
    const checked = checkStart(spec, access, model => this.priceOf(model));
    spec = checked.spec;
    this.pending.add(id);
    const served = this.burst.begin();
    let run: ForkRun;
    try {
      // Its own file is made once the burst of starts is over, as its run begins: the file's create, write
      // and flush are several round trips through the thread pool, whose completions ran on this thread
      // between the dispatches of the siblings' fork/start requests (docs/benchmarks.md, "Fifty siblings").
      // The start journal holds its bytes meanwhile; appends wait for the file.
      const session = await writeForkStart(this.store, id, checked, access, this.burst.settled());
      run = newRun(session, { ...session.bootstrap!.fork, modelTurns: 0, usage: session.spent }, access);
      run.lease = this.store.holdLoaded(session.id);
      this.forks.set(session.id, run);
      // Flushed before its first request, with the parent's records it inherits (on the thread pool as well).
      holdUntilFlushed(run, Promise.all([this.store.durable(session.id), spec.parent.durable()]), error => this.failUnflushed(run, error));
      // Its bootstrap already says "queued" with this budget: no status record (another file open and
      // fdatasync per fork, beside its siblings' bootstraps on the thread pool).
      this.enqueue(run, { recorded: true });
    } finally {
      this.pending.delete(id);
      served();
    }
    if (spec.callId) await run.startFlush;
    return { ...run.summary };
  }

  /** Its start could not be flushed: it never runs (queued) or stops before its first request. */
  private failUnflushed(run: ForkRun, error: unknown): void {
    this.queue.remove(run);
    failRun(this.ending(), run, new Error(`Fork ${run.id} did not run: ${error instanceof Error ? error.message : String(error)}.`));
  }

  /** Forgets a finished (or interrupted, or paused) fork whose file is being deleted. */
  forget(forkId: string): void {
    const run = this.forks.get(forkId);
    if (!run) return;
    const waiting = run.summary.state === 'interrupted' || run.summary.state === 'paused-budget';
    if (!isTerminal(run.summary.state) && !waiting) throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}.`);
    releaseSession(run);
    this.forks.delete(forkId);
  }

  /** Every fork on disk or being created. */
  liveForkIds(): Set<string> {
    return new Set([...this.forks.keys(), ...this.pending]);
  }

  /** Records what the user did with a fork's worktree (applied, kept, discarded) and tells the clients. */
  updateWorktree(forkId: string, patch: Partial<ForkWorktree>): ForkSummary {
    const run = this.forks.get(forkId);
    if (!run?.summary.worktree) throw new ForkNotFoundError(`No worktree fork with id ${forkId}.`);
    // The summary's worktree object may be the frozen launch record: replace it, never mutate it.
    run.summary.worktree = { ...run.summary.worktree, ...patch };
    this.broadcastState(run);
    return { ...run.summary };
  }

  list(parentSessionId?: string): ForkSummary[] {
    return [...this.forks.values()]
      .filter(run => !parentSessionId || run.summary.parentSessionId === parentSessionId)
      .map(run => ({ ...run.summary }))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Neither queued nor running nor waiting for an approval: the fork's transcript and folder stay as they are. */
  atRest(forkId: string): boolean {
    const state = this.get(forkId)?.state;
    return state === undefined || isTerminal(state) || state === 'paused-budget' || state === 'interrupted';
  }

  get(forkId: string): ForkSummary | undefined {
    const run = this.forks.get(forkId);
    return run && { ...run.summary };
  }

  cancel(forkId: string): boolean {
    const run = this.forks.get(forkId);
    if (!run || isTerminal(run.summary.state)) return false;
    // Queued, or interrupted and never revived (no model access yet): nothing runs that could finish it.
    if (this.queue.remove(run) || !run.controller) finishRun(this.ending(), run, 'cancelled');
    else run.controller.abort();
    return true;
  }

  /**
   * Continues a finished fork with a message: its own transcript only, never newer parent history. A fork
   * paused at its budget continues with or without one, once `budget` (its new budget) allows.
   */
  async send(forkId: string, message: string | undefined, access: ModelAccess | undefined, budget?: Budget, loosenApproval = false): Promise<ForkSendResult> {
    const run = this.runOf(forkId);
    mayContinue(run, message);
    // The chat's budget counts the chat's own spending: read once if the chat was not since start-up.
    if ((access ?? run.access)?.budgets?.perChat) await this.store.readSpent(run.summary.parentSessionId);
    // An ended fork's session may have left memory: streamed in again, and held while it runs.
    if (!run.lease) {
      const lease = await this.store.hold(forkId);
      // Another send may have taken it meanwhile, or the fork was deleted.
      if (run.lease || this.forks.get(forkId) !== run) lease.release();
      else run.lease = lease;
    }
    try {
      mayContinue(run, message);
      const summary = this.continueRun(run, message, access && sendPolicy(heldSession(run).bootstrap?.policy, access, loosenApproval), budget);
      return { ...summary, ...(run.access ? { approvalMode: run.access.approvalMode } : {}) };
    } catch (error) {
      if (run.summary.state !== 'queued') releaseSession(run);
      throw error;
    }
  }

  private continueRun(run: ForkRun, message: string | undefined, access: ModelAccess | undefined, budget?: Budget): ForkSummary {
    const forkId = run.id;
    const session = heldSession(run);
    const previousBudget = run.summary.budget;
    if (budget) run.summary.budget = budget;
    run.access = access ?? run.access;
    const stop = this.budgetStop(run);
    if (stop) {
      run.summary.budget = previousBudget;
      throw new BudgetError(`${stop} Raise the budget to continue fork ${forkId}.`);
    }
    run.summary.pausedReason = undefined;
    if (message !== undefined) session.commit('prompt', { role: 'user', content: [{ type: 'text', text: message }] });
    run.summary.report = undefined;
    run.summary.error = undefined;
    run.summary.endedAt = undefined;
    this.enqueue(run);
    return { ...run.summary };
  }

  /** Resolves when the fork ends, or pauses at its budget (it needs the user then too). */
  wait(forkId: string): Promise<ForkSummary> {
    const run = this.forks.get(forkId);
    if (!run) return Promise.reject(new ForkNotFoundError(`No fork with id ${forkId}.`));
    if (isTerminal(run.summary.state) || run.summary.state === 'paused-budget') return Promise.resolve({ ...run.summary });
    return new Promise(resolve => run.waiters.push(resolve));
  }

  /** Reports of agent-started forks not yet shown to their parent, marked delivered as they are taken. */
  takeNotifications(parentSessionId: string): string[] {
    return undelivered(this.forks.values(), parentSessionId).map(run => {
      markDelivered(this.store, run);
      return renderForkNotification(run.summary);
    });
  }

  /** What the fork has done so far, as the events of its run: its entries, then what is not committed yet. */
  async history(forkId: string): Promise<{ events: AgentEvent[]; seq: number }> {
    const run = this.runOf(forkId);
    const own = run.lease ? run.lease.session.ownEntries() : await this.store.using(forkId, session => session.ownEntries());
    return { events: [...outputHistory(own), ...run.uncommitted.list()], seq: run.eventSeq };
  }

  /** True once per finished run: the caller is the one window that tells the user. */
  claimAnnouncement(forkId: string): Promise<boolean> {
    return claimAnnouncement(this.store, this.runOf(forkId));
  }

  /** A foreground subagent's report went back as its tool result: do not deliver it again. */
  takeNotificationOf(forkId: string): void {
    const run = this.forks.get(forkId);
    if (run && !run.delivered) markDelivered(this.store, run);
  }

  /** Loads every fork on disk (see loadForksFromDisk); returns the problems. */
  loadAll(): Promise<string[]> {
    return loadForksFromDisk({ store: this.store, forks: this.forks, spending: this.spending, cacheStepsOf: session => this.cacheStepsOf(session) });
  }

  /** Revives interrupted forks once a client supplies model access. */
  reviveWith(access: ModelAccess): void {
    for (const run of this.forks.values()) {
      if (run.summary.state !== 'interrupted' || this.queue.isWaiting(run)) continue;
      const refusal = prepareRevival(run, access);
      if (refusal) finishRun(this.ending(), run, 'failed', undefined, refusal.refused);
      else this.enqueue(run);
    }
  }

  /** A fork is queued or running. */
  get busy(): boolean {
    return this.queue.busy;
  }

  /** Resolves when no fork is queued or running. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** fork.maxConcurrent: forks beyond it wait in the queue. */
  get maxConcurrent(): number {
    return this.queue.maxConcurrent;
  }

  set maxConcurrent(limit: number) {
    this.queue.maxConcurrent = limit;
  }

  private runOf(forkId: string): ForkRun {
    const run = this.forks.get(forkId);
    if (!run) throw new ForkNotFoundError(`No fork with id ${forkId}.`);
    return run;
  }

  /** A chat's spending: its own session's and every fork's of it, with its cost when every part has a price. */
  chatSpend(parentSessionId: string): ChatSpend {
    return this.spending.chatSpend(parentSessionId);
  }

  /** Today's price of a model (the setting's, else the table's). */
  priceOf(model: string): ModelPrice | undefined {
    return priceFor(model, this.prices)?.price;
  }

  /**
   * New prices (a client configured fork.prices or --prices): every fork's cost is priced again, and clients
   * told, so rows priced before the setting arrived (forks loaded at start-up) show the same figures as the
   * transcript and the chat.
   */
  setPrices(prices: PriceOverrides): void {
    this.prices = prices;
    this.spending.repriceAll(id => this.store.loaded(id)?.header.settings.model, run => this.broadcastState(run));
  }

  /** Why the fork may not make another request (its budget, or its chat's), if it may not. */
  private budgetStop(run: ForkRun): string | undefined {
    return this.spending.stopOf(run, heldSession(run).header.settings.model) ?? this.groups?.budgetStopOf(run.summary);
  }

  /** A verify result read back from its tournament's record (the runtime restarted). */
  restoreVerify(forkId: string, verify: VerifyResult): void {
    const run = this.forks.get(forkId);
    if (run) run.summary.verify = verify;
  }

  /** `recorded`: the fork's transcript already says it is queued (its bootstrap, for a fork just started). */
  private enqueue(run: ForkRun, { recorded = false } = {}): void {
    // On disk too: a runtime that dies from here on finds the fork unfinished and revives it.
    if (!recorded) heldSession(run).writeStatus({ state: 'queued', time: new Date().toISOString(), budget: run.summary.budget });
    run.uncommitted.clear();
    // Told "queued" only when it waits: one that starts at once is told "running" by its admission, and a
    // "queued" notice in the same moment would be one more message for every client, for each of fifty siblings.
    run.summary.state = 'queued';
    if (!this.queue.add(run)) this.broadcastState(run);
  }

  private async execute(run: ForkRun): Promise<void> {
    const access = run.access;
    if (!access) return finishRun(this.ending(), run, 'failed', undefined, 'No model access: configure an API key.');
    const session = heldSession(run);
    // Forked from its parent's tail: the rest of its inherited history is read first (off the fork/start answer),
    // while its start is flushed: a failed flush has failed the run, a cancel meanwhile has ended it.
    const [flushed] = await Promise.all([startFlushed(run), session.inheritedReady()]);
    if (!flushed || isTerminal(run.summary.state)) return;
    if (session.unavailable) {
      run.unavailable = session.unavailable;
      return finishRun(this.ending(), run, 'failed', undefined, `Cannot run: ${session.unavailable}.`);
    }
    const controller = new AbortController();
    run.controller = controller;
    // Admitted from the queue, the run is "running" already (and its clients were told once).
    if (run.summary.state !== 'running') this.setState(run, 'running');
    const { outcome, setupFailure, verify } = await runFork(run, session, access, {
      store: this.store, ports: this.ports, prefixWriters: this.prefixWriters, approvals: this.approvals, controller,
      emit: event => this.onEvent(run, event),
      setState: state => this.setState(run, state),
      changed: () => this.broadcastChange(run),
      mayRequest: () => this.budgetStop(run),
      verifyCommand: this.groups?.verifyCommandOf(run.summary),
    });
    if (verify) run.summary.verify = verify;
    endWithOutcome(this.ending(), run, outcome, setupFailure);
  }

  private onEvent(run: ForkRun, event: AgentEvent): void {
    if (recordProgress(run, event, this.spending, id => this.sessionOrUndefined(id))) this.broadcastState(run);
    run.uncommitted.add(event);
    const seq = ++run.eventSeq;
    for (const client of this.clients) client.notify(forkEvent, { forkId: run.id, event, seq });
  }

  /** A session in memory (the explorer compares a fork's first request with its parent's, when loaded). */
  private sessionOrUndefined(id: string): Session | undefined {
    return this.store.loaded(id);
  }

  /** Cache explorer steps of any session (chat or fork). */
  cacheStepsOf(session: Session) {
    return cacheSteps(session, id => this.sessionOrUndefined(id));
  }

  /** What ending a run needs (groups is read at each end: the tournament manager attaches after start-up). */
  private ending(): RunEndContext {
    return { store: this.store, setState: (run, state) => this.setState(run, state), groups: this.groups };
  }

  private setState(run: ForkRun, state: ForkState): void {
    run.summary.state = state;
    this.broadcastState(run);
  }

  private broadcastState(run: ForkRun): void {
    const fork = { ...run.summary };
    this.lastNotice.set(run, fork);
    for (const client of this.clients) client.notify(forkState, { fork });
  }

  /**
   * A run's set-up changed the summary (sandbox, ports): told unless the clients have this notice already (a
   * continued run's). Compared only here, twice a run: the summary's parts are replaced, never changed in place.
   */
  private broadcastChange(run: ForkRun): void {
    const last = this.lastNotice.get(run);
    if (!last || JSON.stringify(last) !== JSON.stringify(run.summary)) this.broadcastState(run);
  }
}
