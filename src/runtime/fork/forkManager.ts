// Runs forks and subagents in the background (DESIGN §4.7): detached start, a queue beyond the
// concurrency limit, a 200-request cap, cancel, continue, reports to clients and to the parent.
import * as fs from 'node:fs';
import type { AgentEvent } from '../../common/agentEvents';
import type { ApprovalMode } from '../../common/approval';
import type { ForkSummary, ForkState, ForkWorktree, Isolation } from '../../common/forks';
import type { WorktreeOptions } from '../../common/worktreeOptions';
import { isTerminal } from '../../common/forks';
import { forkEvent, forkState } from '../../common/protocol/forks';
import { addUsage, inputTokens, zeroUsage } from '../../common/transcript';
import type { SessionHeader, Usage } from '../../common/transcript';
import type { Budget } from '../../common/budget';
import { budgetStop, budgetText } from '../../common/budget';
import type { ModelPrice, PriceOverrides } from '../../common/pricing';
import { costFigures, priceFor } from '../../common/pricing';
import { cacheSteps } from '../cache/sessionCache';
import type { ProxySettings } from '../../common/protocol/runtime';
import type { ProviderAccess } from '../model/providers';
import type { ApprovalRouter } from '../approvals';
import type { ClientConnection } from '../clientConnection';
import type { CompactionSettings } from '../agent/compact';
import { runLoop } from '../agent/loop';
import type { ApprovalRequest } from '../agent/loop';
import { applyPolicy, revivalPolicy } from '../policy';
import type { LaunchPolicy } from '../policy';
import { createAnthropicClient } from '../model/anthropicClient';
import type { Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import { log } from '../log';
import { ALL_TOOLS } from '../tools/registry';
import { mcpToolsOf } from '../mcp/mcpTools';
import type { Tool } from '../tools/types';
import { discardForkWorktree } from '../git/worktree';
import { findAdminDir, readWorktreeMeta } from '../git/worktreeMeta';
import { pinGitDir } from '../git/run';
import { createForkSession, newForkId } from './createFork';
import { PortBlocks } from './forkPorts';
import { ForkWorkspace } from './forkWorkspace';
import type { ForkSpec } from './createFork';
import { placeFork } from './isolation';
import { snapshotUpTo } from './select';
import { WorktreeJanitor } from './worktreeJanitor';
import { renderForkNotification } from './notification';
import { UncommittedOutput, outputHistory } from './outputHistory';
import { closeInterruptedCalls } from './revive';
import { refusingSubagentHost } from './subagentHost';
import { PrefixWriters, sharedPrefixKey } from './stagger';

export const MAX_FORK_REQUESTS = 200;

export interface ModelAccess {
  apiKey: string;
  baseUrl?: string;
  approvalMode: ApprovalMode;
  /** Restricted Mode (an untrusted workspace): read tools only. */
  restricted?: boolean;
  ripgrepPath?: string;
  worktreeRoot?: string;
  compaction?: CompactionSettings;
  /** Proxy for model requests (the configuring client's). */
  proxy?: ProxySettings;
  /** Bedrock or Vertex instead of the Anthropic API (DESIGN §5); a fork keeps its starter's. */
  provider?: ProviderAccess;
  /** Ignored files, links, setup commands and ports of new worktrees (issue 13). */
  worktree?: WorktreeOptions;
  /** fork.budget.perFork (a fork's default budget) and fork.budget.perChat (a chat and its forks together). */
  budgets?: { perFork?: Budget; perChat?: Budget };
  /** fork.maxForksPerTurn: Agent calls the model may make in one turn. */
  maxForksPerTurn?: number;
}

/** What callers ask for: isolation may be left to the default (DESIGN §4.8), the id is chosen here. */
export type StartSpec = Omit<ForkSpec, 'isolation' | 'id' | 'snapshot' | 'policy'> & { isolation?: Isolation };

interface ForkRun {
  session: Session;
  summary: ForkSummary;
  /** Numbers the fork's `fork/event`s, so a history can say which it includes. */
  eventSeq: number;
  uncommitted: UncommittedOutput;
  access?: ModelAccess;
  controller?: AbortController;
  waiters: ((summary: ForkSummary) => void)[];
}

export class ForkManager {
  private readonly forks = new Map<string, ForkRun>();
  private readonly queue: ForkRun[] = [];
  private running = 0;
  private idleListeners: (() => void)[] = [];
  /** Ids of forks being created (worktree first, then the bootstrap): start-up pruning must spare them. */
  private readonly pending = new Set<string>();
  private readonly ports = new PortBlocks();
  readonly janitor: WorktreeJanitor;
  /** First requests of sibling forks in flight, by shared prefix (the stagger, DESIGN §4.6). */
  private readonly prefixWriters = new PrefixWriters();
  maxConcurrent = 4;
  /** fork.prices of the client that configured last (the table covers the rest). */
  prices: PriceOverrides = {};

  constructor(
    private readonly store: SessionStore,
    private readonly clients: ReadonlySet<ClientConnection>,
    private readonly approvals: ApprovalRouter,
  ) {
    this.janitor = new WorktreeJanitor(store, () => this.liveForkIds());
  }

  /**
   * Detached: returns as soon as the bootstrap record is on disk. A worktree fork's worktree is created
   * first, so the bootstrap can record it; a fork that fails to start leaves no worktree behind.
   */
  async start(spec: StartSpec, access: ModelAccess): Promise<ForkSummary> {
    const id = newForkId();
    const budget = spec.budget ?? access.budgets?.perFork;
    if (budget && 'usd' in budget && !this.priceOf(spec.parent.header.settings.model)) {
      throw new BudgetError(`A budget of ${budgetText(budget)} needs a price, and none is known for ${spec.parent.header.settings.model}: set fork.prices, or give the budget in tokens (e.g. 20000tokens).`);
    }
    spec = { ...spec, budget };
    // No copy: the parent's history array only grows meanwhile, and the snapshot knows its length.
    const snapshot = spec.parent.snapshot();
    // An unknown fork point is refused before any worktree is made for it.
    snapshotUpTo(snapshot.entries, spec.atEntryId);
    this.pending.add(id);
    try {
      const placement = await placeFork({
        kind: spec.kind, requested: spec.isolation, parentRoot: spec.parent.header.root, id, name: spec.name, worktreeRoot: access.worktreeRoot,
        owner: this.store.storeDir,
      });
      let session: Session;
      try {
        const policy = policyOf(access);
        session = createForkSession(this.store, { ...spec, id, snapshot, isolation: placement.isolation, policy }, placement.worktree);
      } catch (error) {
        if (placement.worktree) await discardForkWorktree(placement.worktree).catch(() => undefined);
        throw error;
      }
      const run = newRun(session, { ...session.bootstrap!.fork }, access);
      this.forks.set(session.id, run);
      this.enqueue(run);
      return { ...run.summary };
    } finally {
      this.pending.delete(id);
    }
  }

  /** Forgets a finished (or interrupted) fork whose file is being deleted. */
  forget(forkId: string): void {
    const run = this.forks.get(forkId);
    if (!run) return;
    if (!isTerminal(run.summary.state) && run.summary.state !== 'interrupted') throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}.`);
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

  get(forkId: string): ForkSummary | undefined {
    const run = this.forks.get(forkId);
    return run && { ...run.summary };
  }

  cancel(forkId: string): boolean {
    const run = this.forks.get(forkId);
    if (!run || isTerminal(run.summary.state)) return false;
    const queued = this.queue.indexOf(run);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(run, 'cancelled');
    } else if (run.controller) {
      run.controller.abort();
    } else {
      // Interrupted and never revived (no model access yet): nothing runs that could finish it.
      this.finish(run, 'cancelled');
    }
    return true;
  }

  /**
   * Continues a finished fork with a message: its own transcript only, never newer parent history. A fork
   * paused at its budget continues with or without one, once `budget` (its new budget) allows.
   */
  send(forkId: string, message: string | undefined, access: ModelAccess | undefined, budget?: Budget): ForkSummary {
    const run = this.runOf(forkId);
    const paused = run.summary.state === 'paused-budget';
    if (!isTerminal(run.summary.state) && !paused) throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}; wait for it to finish or stop it first.`);
    if (run.summary.worktree?.discarded) throw new ForkBusyError(`Fork ${forkId}'s worktree was discarded; it cannot continue.`);
    if (run.session.unavailable) throw new ForkBusyError(`Fork ${forkId} cannot continue: ${run.session.unavailable}.`);
    if (message === undefined && !paused) throw new ForkBusyError(`Fork ${forkId} is ${run.summary.state}: continue it with a message.`);
    const previousBudget = run.summary.budget;
    if (budget) run.summary.budget = budget;
    run.access = access ?? run.access;
    const stop = this.budgetStop(run);
    if (stop) {
      run.summary.budget = previousBudget;
      throw new BudgetError(`${stop} Raise the budget to continue fork ${forkId}.`);
    }
    run.summary.pausedReason = undefined;
    if (message !== undefined) run.session.commit('prompt', { role: 'user', content: [{ type: 'text', text: message }] });
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
    const texts: string[] = [];
    for (const run of this.forks.values()) {
      const status = run.session.status;
      if (run.summary.parentSessionId !== parentSessionId || run.summary.origin !== 'agent') continue;
      if (!isTerminal(run.summary.state) || !status || status.delivered) continue;
      texts.push(renderForkNotification(run.summary));
      run.session.writeStatus({ ...status, delivered: true });
    }
    return texts;
  }

  /** What the fork has done so far, as the events of its run: its entries, then what is not committed yet. */
  history(forkId: string): { events: AgentEvent[]; seq: number } {
    const run = this.runOf(forkId);
    return { events: [...outputHistory(run.session.ownEntries()), ...run.uncommitted.list()], seq: run.eventSeq };
  }

  /** True once per finished run: the caller is the one window that tells the user. */
  claimAnnouncement(forkId: string): boolean {
    const run = this.runOf(forkId);
    const status = run.session.status;
    if (!isTerminal(run.summary.state) || !status || status.announced) return false;
    run.session.writeStatus({ ...status, announced: true });
    run.summary.announced = true;
    return true;
  }

  /** A foreground subagent's report went back as its tool result: do not deliver it again. */
  takeNotificationOf(forkId: string): void {
    const run = this.forks.get(forkId);
    const status = run?.session.status;
    if (run && status && !status.delivered) run.session.writeStatus({ ...status, delivered: true });
  }

  /**
   * Loads every fork on disk; unfinished ones wait for model access (the first configured key). A fork
   * whose inherited history cannot be read back is listed as failed, with the reason. Returns the problems.
   */
  async loadAll(): Promise<string[]> {
    const problems: string[] = [];
    for (const id of this.store.ids().filter(id => id.startsWith('f-'))) {
      if (this.forks.has(id)) continue;
      let session: Session;
      try {
        session = await this.store.get(id);
      } catch (error) {
        // One unreadable fork file must not keep the others (or the runtime) from starting.
        problems.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      if (!session.bootstrap) continue;
      const summary = summarize(session);
      const run = newRun(session, summary);
      this.forks.set(id, run);
      if (session.unavailable) {
        // Its segments are gone or damaged: this fork cannot run or continue; no other fork is affected.
        Object.assign(run.summary, { state: 'failed', error: `Cannot revive: ${session.unavailable}.` });
        problems.push(`${id}: ${session.unavailable}`);
      } else {
        this.refreshCost(run);
        if (session.requests().length > 0) run.summary.cacheSteps = this.cacheStepsOf(session);
        // A fork paused at its budget stays paused: only the user continues it.
        if (!isTerminal(summary.state) && summary.state !== 'paused-budget') run.summary.state = 'interrupted';
      }
    }
    return problems;
  }

  /** Revives interrupted forks once a client supplies model access. */
  reviveWith(access: ModelAccess): void {
    for (const run of this.forks.values()) {
      if (run.summary.state !== 'interrupted' || this.queue.includes(run)) continue;
      if (run.summary.worktree?.discarded) {
        this.finish(run, 'failed', undefined, `Its worktree ${run.summary.worktree.path} no longer exists.`);
        continue;
      }
      // Issue 11: a fork launched with `ask` still asks when a client configured with `auto` revives it.
      const policy = revivalPolicy(run.session.bootstrap?.policy, policyOf(access));
      run.access = { ...access, approvalMode: policy.approvalMode, restricted: policy.restricted };
      closeInterruptedCalls(run.session);
      this.enqueue(run);
    }
  }

  /** A fork is queued or running. */
  get busy(): boolean {
    return this.running > 0 || this.queue.length > 0;
  }

  /** Resolves when no fork is queued or running. */
  whenIdle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise(resolve => this.idleListeners.push(resolve));
  }

  /** What each chat had spent when last in memory (see chatSpent). */
  private readonly chatSpentSeen = new Map<string, Usage>();

  private runOf(forkId: string): ForkRun {
    const run = this.forks.get(forkId);
    if (!run) throw new ForkNotFoundError(`No fork with id ${forkId}.`);
    return run;
  }

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
    for (const run of this.forks.values()) if (run.summary.parentSessionId === parentSessionId) total = addUsage(total, run.summary.usage);
    return total;
  }

  priceOf(model: string): ModelPrice | undefined {
    return priceFor(model, this.prices)?.price;
  }

  /** Why the fork may not make another request (its budget, or its chat's), if it may not. */
  private budgetStop(run: ForkRun): string | undefined {
    const model = run.session.header.settings.model;
    const price = this.priceOf(model);
    const own = run.summary.budget && budgetStop('Its budget', run.summary.budget, run.summary.usage, price, model);
    if (own) return own;
    const perChat = run.access?.budgets?.perChat;
    return perChat && budgetStop("The chat's budget (fork.budget.perChat)", perChat, this.chatSpent(run.summary.parentSessionId), price, model);
  }

  private refreshCost(run: ForkRun): void {
    run.summary.model = run.session.header.settings.model;
    run.summary.cost = costFigures(run.summary.usage, this.priceOf(run.summary.model));
  }

  private enqueue(run: ForkRun): void {
    // On disk too: a runtime that dies from here on finds the fork unfinished and revives it.
    run.session.writeStatus({ state: 'queued', time: new Date().toISOString(), budget: run.summary.budget });
    run.uncommitted.clear();
    this.setState(run, 'queued');
    this.queue.push(run);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const run = this.queue.shift()!;
      this.running++;
      // execute() ends the run itself; this catch is for a failure in the bookkeeping around the loop.
      void this.execute(run).catch(error => this.failRun(run, error)).finally(() => {
        this.running--;
        this.pump();
      });
    }
    if (this.running === 0 && this.queue.length === 0) for (const listener of this.idleListeners.splice(0)) listener();
  }

  private async execute(run: ForkRun): Promise<void> {
    const access = run.access;
    if (!access) return this.finish(run, 'failed', undefined, 'No model access: configure an API key.');
    const controller = new AbortController();
    run.controller = controller;
    const signal = controller.signal;
    run.summary.endedProcesses = undefined;
    this.setState(run, 'running');
    const emit = (event: AgentEvent) => this.onEvent(run, event);
    const { approvalMode, approve } = applyPolicy(policyOf(access), async ({ callId, tool, input, description, category }: ApprovalRequest) => {
      this.setState(run, 'waiting-for-approval');
      try {
        return await this.approvals.ask({
          sessionId: run.session.id, turnId: run.session.id, callId, toolName: tool.definition.name,
          category, description: `${run.summary.name}: ${description}`, input,
        }, signal);
      } finally {
        if (!signal.aborted) this.setState(run, 'running');
      }
    });
    const workspace = new ForkWorkspace({
      summary: run.summary, session: run.session, parentRoot: this.parentRootOf(run),
      // Restricted Mode runs no code: setup commands (npm ci runs the repository's scripts) are skipped too.
      options: access.restricted ? { ...access.worktree, setup: [] } : access.worktree, ports: this.ports, emit, signal,
      changed: patch => {
        Object.assign(run.summary, patch);
        this.broadcastState(run);
      },
      failed: () => controller.abort(),
    });
    await workspace.begin();
    let release: (() => void) | undefined;
    const outcome = await runLoop({
      session: run.session,
      model: createAnthropicClient(access),
      tools: workspace.gatedTools(toolsFor(run.summary.kind, run.session.header, access.restricted === true)),
      toolContext: {
        root: run.session.header.root, ripgrepPath: access.ripgrepPath, subagents: refusingSubagentHost,
        env: workspace.env, onProcessGroup: pgid => workspace.groups.add(pgid),
      },
      beforeRequest: () => workspace.beforeRequest(),
      approvalMode,
      compaction: access.compaction,
      approve,
      signal,
      emit,
      maxRequests: Math.max(0, MAX_FORK_REQUESTS - run.summary.modelTurns),
      mayRequest: () => this.budgetStop(run),
      beforeSend: async () => {
        release?.();
        const key = sharedPrefixKey(run.session);
        release = key === undefined ? undefined : await this.prefixWriters.claim(key, signal);
      },
      onResponseStart: () => {
        release?.();
        release = undefined;
      },
    });
    release?.();
    run.controller = undefined;
    // A failed preparation is recorded too: the reason is in the transcript, not only in the summary.
    if (!signal.aborted || workspace.failureReason) await workspace.settle();
    // Servers and watchers its commands left running end with the run (stopped, failed or finished).
    const ended = await workspace.end();
    if (ended > 0) run.summary.endedProcesses = ended;
    const setupFailure = workspace.failureReason;
    if (setupFailure) return this.finish(run, 'failed', undefined, setupFailure);
    if (outcome.stopReason === 'cancelled') return this.finish(run, 'cancelled');
    if (outcome.stopReason === 'budget') return this.pause(run, outcome.budgetReason ?? 'Its budget is reached.');
    if (outcome.stopReason === 'error') return this.finish(run, 'failed', undefined, outcome.error?.message);
    if (outcome.stopReason === 'max_turns') {
      return this.finish(run, 'failed', outcome.text || undefined, `Stopped at the cap of ${MAX_FORK_REQUESTS} model turns.`);
    }
    this.finish(run, 'completed', outcome.text);
  }

  /** The parent session's root, for FORK_AGENTS_PARENT_ROOT (its repository's top when the parent is gone). */
  private parentRootOf(run: ForkRun): string {
    // The header alone: a deleted or evicted parent is not streamed in for one path.
    return this.store.headerOf(run.summary.parentSessionId)?.root ?? run.summary.worktree?.repoRoot ?? run.summary.root;
  }

  private onEvent(run: ForkRun, event: AgentEvent): void {
    if (event.type === 'usage') {
      run.summary.usage = addUsage(run.summary.usage, event.usage);
      if (!event.billedOnly) {
        run.summary.modelTurns++;
        run.summary.firstUsage ??= event.usage;
        run.summary.context = { tokens: event.contextTokens, window: event.contextWindow };
        run.summary.cacheSteps = cacheSteps(run.session, id => this.sessionOrUndefined(id));
      }
      this.refreshCost(run);
      this.broadcastState(run);
    }
    run.uncommitted.add(event);
    const seq = ++run.eventSeq;
    for (const client of this.clients) client.notify(forkEvent, { forkId: run.session.id, event, seq });
  }

  /** Stopped before a request at a budget: not finished, transcript intact; the user continues or stops it. */
  private pause(run: ForkRun, reason: string): void {
    run.summary.pausedReason = reason;
    run.session.writeStatus({ state: 'paused-budget', time: new Date().toISOString(), budget: run.summary.budget, pausedReason: reason });
    this.setState(run, 'paused-budget');
    for (const resolve of run.waiters.splice(0)) resolve({ ...run.summary });
  }

  /** A session in memory (the explorer compares a fork's first request with its parent's, when loaded). */
  private sessionOrUndefined(id: string): Session | undefined {
    return this.store.loaded(id);
  }

  /** Cache explorer steps of any session (chat or fork). */
  cacheStepsOf(session: Session) {
    return cacheSteps(session, id => this.sessionOrUndefined(id));
  }

  private failRun(run: ForkRun, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    log(`fork ${run.session.id} failed: ${message}`);
    run.controller = undefined;
    if (!isTerminal(run.summary.state)) this.finish(run, 'failed', undefined, message);
  }

  private finish(run: ForkRun, state: ForkState, report?: string, error?: string): void {
    run.summary.report = report;
    run.summary.error = error;
    run.summary.endedAt = new Date().toISOString();
    run.summary.announced = undefined;
    run.summary.pausedReason = undefined;
    try {
      run.session.writeStatus({ state, time: run.summary.endedAt, report, error, budget: run.summary.budget });
    } catch (writeError) {
      // A full disk: the clients still learn how the run ended; on disk it stays unfinished and is revived.
      const message = writeError instanceof Error ? writeError.message : String(writeError);
      log(`fork ${run.session.id}: ${message}`);
      run.summary.error = error ? `${error} ${message}` : message;
    }
    this.setState(run, state);
    for (const resolve of run.waiters.splice(0)) resolve({ ...run.summary });
  }

  private setState(run: ForkRun, state: ForkState): void {
    run.summary.state = state;
    this.broadcastState(run);
  }

  private broadcastState(run: ForkRun): void {
    for (const client of this.clients) client.notify(forkState, { fork: { ...run.summary } });
  }
}

export class ForkNotFoundError extends Error {}
export class BudgetError extends Error {}
export class ForkBusyError extends Error {}

function policyOf(access: ModelAccess): LaunchPolicy {
  return access.restricted ? { approvalMode: access.approvalMode, restricted: true } : { approvalMode: access.approvalMode };
}

function newRun(session: Session, summary: ForkSummary, access?: ModelAccess): ForkRun {
  return { session, summary, access, waiters: [], eventSeq: 0, uncommitted: new UncommittedOutput() };
}

function toolsFor(kind: ForkSummary['kind'], header: SessionHeader, restricted: boolean): ReadonlyMap<string, Tool> {
  // Every child keeps the full tool definitions (cache parity); explore agents may only run read tools.
  const all = [...ALL_TOOLS, ...mcpToolsOf(header, { restricted })];
  const allowed = kind === 'explore' ? all.filter(tool => tool.category === 'read') : all;
  return new Map(allowed.map(tool => [tool.definition.name, tool]));
}

/** A fork's summary rebuilt from disk: launch record, own responses' usage, latest status. */
function summarize(session: Session): ForkSummary {
  // Billed usage counts every own request, rewound and failed ones included.
  const summary: ForkSummary = { ...session.bootstrap!.fork, usage: session.spent, modelTurns: 0 };
  for (const entry of session.ownEntries()) {
    if (entry.kind !== 'response' || !entry.usage) continue;
    summary.modelTurns++;
    summary.firstUsage ??= entry.usage;
    summary.context = { tokens: inputTokens(entry.usage) };
  }
  if (summary.worktree) summary.worktree = worktreeNow(summary.worktree);
  const status = session.status;
  if (status) {
    summary.state = status.state;
    summary.report = status.report;
    summary.error = status.error;
    summary.endedAt = isTerminal(status.state) ? status.time : undefined;
    summary.announced = status.announced;
    if (status.budget) summary.budget = status.budget;
    summary.pausedReason = status.pausedReason;
  }
  return summary;
}

/** A worktree's launch record brought up to date from disk: gone means discarded; apply and keep from its metadata. */
function worktreeNow(worktree: ForkWorktree): ForkWorktree {
  if (!fs.existsSync(worktree.path)) return { ...worktree, discarded: true };
  // Pinned before any git call in it: the recorded admin folder, or for older records the main repository's entry.
  const gitDir = worktree.gitDir ?? findAdminDir(worktree.repoRoot, worktree.path);
  if (gitDir) pinGitDir(worktree.path, gitDir);
  const meta = readWorktreeMeta(worktree.path);
  // The base moves once when preparation changed the worktree (setupBase.ts); the metadata has the latest.
  return { ...worktree, base: meta?.base || worktree.base, appliedAt: meta?.appliedAt, keptAt: meta?.keptAt };
}
