// Forks in the chat answer that started them: each shows as an item (name, state, model turns, +/− lines,
// cost) with Open / Stop while it runs and Open / Review / Apply when it ends. A chat response cannot be
// changed once written, so the answer stays open while its forks run: a line when one waits for approval,
// and the closing lines and buttons together once all have ended (the chat folds earlier parts into its
// "steps", so the end is what stays in view; a progress line would fold the model's answer away too).
// The chat's Stop button ends only the following; the forks go on and the Forks view follows them. The model's tool results
// (fork ids, worktree paths) stay for the model: the user reads sentences built from the fork's summary.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ReportHeadline } from '../../common/forkNotification';
import type { ForkSummary } from '../../common/forks';
import { chatForkLine, diffStat, shortText } from '../../common/forkDisplay';
import { forkReview, forkState } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import { WORKTREE_COMMANDS } from '../worktrees/rootPlan';
import { untrusted } from './renderEvents';

export const CHAT_FORK_COMMANDS = { open: 'forkAgents.openFork', stop: 'forkAgents.stopFork' } as const;

/** Clock skew between this window and the runtime is nil (same machine); a second of slack still. */
const CREATED_SLACK_MS = 1_000;

export class ChatForks {
  private readonly mine = new Map<string, ForkSummary>();
  private readonly shown = new Set<string>();
  private readonly ended = new Set<string>();
  private readonly listener: { dispose(): void };
  private changed?: () => void;

  /**
   * `sessionId()` is the chat's session (a new chat's arrives with its first event); forks of it created
   * since `since` belong to this answer, and so do those passed to `adopt` (a /fork fork).
   */
  constructor(private readonly runtime: RuntimeApi, private readonly stream: vscode.ChatResponseStream, private readonly sessionId: () => string | undefined, private readonly since = Date.now()) {
    this.listener = runtime.listen(forkState, ({ fork }) => this.onState(fork));
  }

  adopt(fork: ForkSummary): void {
    this.mine.set(fork.id, fork);
    this.changed?.();
  }

  get count(): number {
    return this.mine.size;
  }

  /** Reports of these forks reached the model in this turn: the user reads who reported, not the report's wrapper. */
  /**
   * Says which reports arrived, from their headlines alone: written while the event is handled, so no
   * request to the runtime can make the sentence late (after the answer closed) or lose it.
   */
  reportsArrived(headlines: readonly ReportHeadline[]): void {
    for (const fork of headlines) {
      const outcome = fork.state === 'completed' ? 'finished' : `ended (${fork.state})`;
      this.stream.markdown(untrusted(`\n\n_The report of fork “${shortText(fork.name)}” arrived: it ${outcome} after ${fork.modelTurns} model turn${fork.modelTurns === 1 ? '' : 's'}; @fork has read it._\n\n`));
      this.stream.button({ command: CHAT_FORK_COMMANDS.open, title: 'Open Report', arguments: [{ forkId: fork.forkId }], tooltip: `Open Report of “${fork.name}”` });
    }
  }

  /**
   * Writes an item per fork of this answer and follows them until each has ended (or paused at its budget),
   * or the user stops the response. Returns at once when the answer started no fork.
   */
  async follow(token: vscode.CancellationToken): Promise<void> {
    if (this.mine.size === 0) return;
    await new Promise<void>(resolve => {
      let settled = false;
      function finish(): void {
        if (settled) return;
        settled = true;
        cancelled?.dispose();
        resolve();
      }
      const cancelled: vscode.Disposable | undefined = token.onCancellationRequested(finish);
      this.changed = () => {
        if (settled || token.isCancellationRequested) return finish();
        for (const fork of this.mine.values()) {
          if (!this.shown.has(fork.id)) this.startItem(fork);
          else this.noteWait(fork);
        }
        if (![...this.mine.values()].every(fork => this.isDone(fork))) return;
        // The closing items go together at the end, where the chat keeps them in view.
        this.changed = undefined;
        void this.endItems().then(finish, finish);
      };
      this.changed();
    });
    this.changed = undefined;
  }

  dispose(): void {
    this.changed = undefined;
    this.listener.dispose();
  }

  private onState(fork: ForkSummary): void {
    const ours = this.mine.has(fork.id)
      || (fork.parentSessionId === this.sessionId() && Date.parse(fork.createdAt) >= this.since - CREATED_SLACK_MS);
    if (!ours) return;
    this.mine.set(fork.id, fork);
    this.changed?.();
  }

  private readonly waits = new Set<string>();

  /** A fork that starts waiting for the user says where it asks, once per wait. */
  private noteWait(fork: ForkSummary): void {
    if (fork.state !== 'waiting-for-approval') {
      this.waits.delete(fork.id);
      return;
    }
    if (this.waits.has(fork.id)) return;
    this.waits.add(fork.id);
    this.stream.markdown(untrusted(`\n\n_“${shortText(fork.name)}” waits for your approval: answer in its notification or in the Forks view._\n\n`));
  }

  /** The first sight of a fork: its line and what can be done while it runs. */
  private startItem(fork: ForkSummary): void {
    this.shown.add(fork.id);
    if (this.isDone(fork)) return;
    this.stream.markdown(untrusted(`\n\n**Fork** ${chatForkLine(fork)}\n\n`));
    this.stream.button({ command: CHAT_FORK_COMMANDS.open, title: 'Open', arguments: [{ forkId: fork.id }], tooltip: `Open “${fork.name}”` });
    this.stream.button({ command: CHAT_FORK_COMMANDS.stop, title: 'Stop', arguments: [{ forkId: fork.id }], tooltip: `Stop “${fork.name}”` });
    this.noteWait(fork);
  }

  private ending = Promise.resolve();

  /** Each fork that has ended gets its closing line once: the outcome, its changes, and what to do with them. */
  private endItems(): Promise<void> {
    this.ending = this.ending.then(async () => {
      for (const fork of [...this.mine.values()]) {
        if (this.ended.has(fork.id) || !this.isDone(fork)) continue;
        this.ended.add(fork.id);
        const stat = fork.worktree && !fork.worktree.discarded ? await this.diffOf(fork.id) : undefined;
        this.stream.markdown(untrusted(`\n\n**Fork** ${chatForkLine(fork, stat)}${fork.state === 'paused-budget' ? ` — ${fork.pausedReason ?? 'its budget is reached'}` : ''}\n\n`));
        // The tooltip becomes the button's accessible name: it starts with the visible words.
        const open = fork.report ? 'Open Report' : 'Open';
        this.stream.button({ command: CHAT_FORK_COMMANDS.open, title: open, arguments: [{ forkId: fork.id }], tooltip: `${open} of “${fork.name}”` });
        if (stat && (stat.added > 0 || stat.removed > 0)) {
          this.stream.button({ command: WORKTREE_COMMANDS.review, title: 'Review', arguments: [{ forkId: fork.id }], tooltip: `Review the changes of “${fork.name}”` });
          if (fork.state === 'completed') this.stream.button({ command: WORKTREE_COMMANDS.apply, title: 'Apply', arguments: [{ forkId: fork.id }], tooltip: `Apply the changes of “${fork.name}” to this folder` });
        }
      }
    });
    return this.ending;
  }

  private isDone(fork: ForkSummary): boolean {
    return isTerminal(fork.state) || fork.state === 'paused-budget' || fork.state === 'interrupted';
  }

  private async diffOf(forkId: string): Promise<{ added: number; removed: number } | undefined> {
    try {
      return diffStat((await this.runtime.request(forkReview, { forkId })).patch);
    } catch {
      return undefined;
    }
  }
}
