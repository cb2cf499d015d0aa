// What the Forks panel shows, kept by the host (docs/design.md §2: the webview owns no state): fork summaries,
// their live output, pending approvals and the current chat's transcript. Updates go out as typed
// messages, coalesced per fork — its output and its summary flush together, at most 20 times a second —
// and a snapshot rebuilds a fresh webview.
// Pure (no vscode): the benchmark drives it exactly as the extension does.
import type { AgentEvent } from '../../common/agentEvents';
import type { ForkSummary } from '../../common/forks';
import type { ModelOption } from '../../common/modelChoice';
import type { McpServerStatus } from '../../common/protocol/mcp';
import { approvalsState, forkOutput, forksState, mcpServersState, modelsState, notificationMessage, sessionState, storeState } from '../../common/protocol/webview';
import type { ForkRowView, OutputItem, OutputOp, PanelSnapshot, PendingApprovalView, SessionView, StoreSizeView, WireMessage } from '../../common/protocol/webview';
import { Coalescer, DEFAULT_INTERVAL_MS, realClock } from './coalescer';
import type { Clock } from './coalescer';
import { OutputLog, compactOps } from './outputLog';

/** What waits for a fork's next flush: output ops, or "the summary changed". */
type Pending = { ops: OutputOp[] } | { summary: true };

export interface PanelModelOptions {
  post(message: WireMessage): void;
  /** A fork's report as HTML (markdown.ts renderReport). */
  renderMarkdown(text: string): string;
  intervalMs?: number;
  clock?: Clock;
}

export class PanelModel {
  private readonly rows = new Map<string, ForkRowView>();
  private readonly logs = new Map<string, OutputLog>();
  private readonly approvals = new Map<string, PendingApprovalView>();
  /** Live events (with their seq) of forks whose history is being fetched (beginHistory … endHistory). */
  private readonly loading = new Map<string, { event: AgentEvent; seq?: number }[]>();
  private session?: SessionView;
  private store?: StoreSizeView;
  private modelOptions: ModelOption[] = [];
  private servers: McpServerStatus[] = [];
  private readonly pending: Coalescer<Pending>;

  constructor(private readonly options: PanelModelOptions) {
    this.pending = new Coalescer<Pending>((forkId, items) => this.flush(forkId, items), options.intervalMs ?? DEFAULT_INTERVAL_MS, options.clock ?? realClock);
  }

  forks(): ForkSummary[] {
    return [...this.rows.values()].map(row => row.fork);
  }

  fork(forkId: string): ForkSummary | undefined {
    return this.rows.get(forkId)?.fork;
  }

  currentSession(): SessionView | undefined {
    return this.session;
  }

  setFork(fork: ForkSummary): void {
    const before = this.rows.get(fork.id);
    // The report is rendered once, when it first appears (or changes after a continue).
    const reportHtml = !fork.report ? undefined : before?.fork.report === fork.report ? before.reportHtml : this.options.renderMarkdown(fork.report);
    this.rows.set(fork.id, { fork, reportHtml });
    if (before && before.fork.state !== fork.state) this.noteEnd(fork);
    this.pending.add(fork.id, { summary: true });
  }

  /** A fork/start answer: ignored when fork/state already told us about the fork (it may be further along). */
  addForkIfNew(fork: ForkSummary): void {
    if (!this.rows.has(fork.id)) this.setFork(fork);
  }

  onForkEvent(forkId: string, event: AgentEvent, seq?: number): void {
    const held = this.loading.get(forkId);
    if (held) {
      held.push({ event, seq });
      return;
    }
    const ops = this.logOf(forkId).apply(event);
    if (ops.length > 0) this.pending.add(forkId, { ops });
  }

  /** Call before asking the runtime for a fork's history (fork/history): its live events wait for it. */
  beginHistory(forkId: string): void {
    if (!this.loading.has(forkId)) this.loading.set(forkId, []);
  }

  /**
   * The fork's output so far replaces what this window showed of it; the live events that arrived while
   * it was fetched follow, except those it already includes (seq ≤ the history's). Without a history
   * (the request failed) the held events are simply applied.
   */
  endHistory(forkId: string, history?: { events: readonly AgentEvent[]; seq: number }): void {
    const held = this.loading.get(forkId) ?? [];
    this.loading.delete(forkId);
    const fork = this.rows.get(forkId)?.fork;
    if (!history) {
      for (const { event } of held) this.onForkEvent(forkId, event);
      if (fork) this.noteEnd(fork);
      return;
    }
    const firstSeq = this.logs.get(forkId)?.upcomingSeq ?? 1;
    const log = new OutputLog(undefined, firstSeq);
    this.logs.set(forkId, log);
    const newer = held.filter(h => h.seq === undefined || h.seq > history.seq).map(h => h.event);
    for (const event of [...history.events, ...newer]) log.apply(event);
    if (fork) endNote(log, fork);
    // Everything older than the new log goes; its items arrive whole.
    this.pending.add(forkId, { ops: [{ op: 'trim', beforeSeq: firstSeq }, ...log.snapshot().map(item => ({ op: 'put' as const, item }))] });
  }

  addApproval(approval: PendingApprovalView): void {
    this.approvals.set(approval.callId, approval);
    this.postApprovals();
  }

  removeApproval(callId: string): void {
    if (this.approvals.delete(callId)) this.postApprovals();
  }

  setSession(session: SessionView | undefined): void {
    this.session = session;
    this.options.post(notificationMessage(sessionState, { session }));
  }

  /** The store's size on disk (store/info), shown under the forks. */
  setStore(store: StoreSizeView): void {
    this.store = store;
    this.options.post(notificationMessage(storeState, store));
  }

  /** Models a new fork may pick (the Chat view's list). */
  models(): ModelOption[] {
    return this.modelOptions;
  }

  setModels(models: ModelOption[]): void {
    if (JSON.stringify(models) === JSON.stringify(this.modelOptions)) return;
    this.modelOptions = models;
    this.options.post(notificationMessage(modelsState, { models }));
  }

  /** The current chat's MCP servers: the whole list (a new chat), or one server's new state (mcp/state). */
  setMcpServers(servers: McpServerStatus[]): void {
    this.servers = servers;
    this.options.post(notificationMessage(mcpServersState, { servers }));
  }

  /** A server's new state; ignored unless the current chat uses that server. */
  updateMcpServer(status: McpServerStatus): void {
    const at = this.servers.findIndex(s => s.name === status.name);
    if (at < 0) return;
    this.setMcpServers(this.servers.map((s, i) => (i === at ? status : s)));
  }

  /** Everything a fresh webview needs; pending output batches are part of it, so they are dropped. */
  snapshot(extra: Pick<PanelSnapshot, 'defaults' | 'worktreeActions'>): PanelSnapshot {
    this.pending.discard();
    const outputs: Record<string, OutputItem[]> = {};
    for (const [forkId, log] of this.logs) outputs[forkId] = log.snapshot();
    return {
      forks: [...this.rows.values()], outputs, approvals: [...this.approvals.values()], session: this.session, store: this.store,
      models: this.modelOptions, mcpServers: this.servers, ...extra,
    };
  }

  dispose(): void {
    this.pending.dispose();
  }

  /** One render's worth for a fork: its output first, so a summary that ends the fork never overtakes it. */
  private flush(forkId: string, items: readonly Pending[]): void {
    const ops = items.flatMap(item => ('ops' in item ? item.ops : []));
    if (ops.length > 0) this.options.post(notificationMessage(forkOutput, { forkId, ops: compactOps(ops) }));
    const row = this.rows.get(forkId);
    if (row && items.some(item => 'summary' in item)) this.options.post(notificationMessage(forksState, row));
  }

  private logOf(forkId: string): OutputLog {
    let log = this.logs.get(forkId);
    if (!log) {
      log = new OutputLog();
      this.logs.set(forkId, log);
    }
    return log;
  }

  /** The output says how a fork that streamed in this window ended, when it did not simply complete. */
  private noteEnd(fork: ForkSummary): void {
    if (!this.logs.has(fork.id) || this.loading.has(fork.id)) return;
    const ops = endNote(this.logOf(fork.id), fork);
    if (ops.length > 0) this.pending.add(fork.id, { ops });
  }

  private postApprovals(): void {
    this.options.post(notificationMessage(approvalsState, { approvals: [...this.approvals.values()] }));
  }
}

function endNote(log: OutputLog, fork: ForkSummary): OutputOp[] {
  if (fork.state === 'cancelled') return log.note('info', 'Stopped.');
  if (fork.state === 'failed') return log.note('error', fork.error ?? 'Failed.');
  return [];
}
