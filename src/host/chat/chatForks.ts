// Forks in the chat answer that started them: each shows as an item (name, state, model turns, +/− lines,
// cost) with links that act on it through commands: Open / Review / Apply / Stop. An answer never waits for
// its forks: a chat answer still in progress holds back the user's next message (VS Code sends a message
// typed meanwhile as a "steering" one only after the answer ends), so the item says what the fork was doing
// when the answer ended and where its live state is (the Forks view); its report arrives in a later
// answer. Sources for the queue, read 2026-12-02: https://github.com/microsoft/vscode/pull/294575 (message
// queuing / steering, on by default since 1.109: a message sent while a request runs is held as queued or
// steering), https://github.com/microsoft/vscode/issues/294267 (a message sent beside a pending approval is
// enqueued as steering and the approval stays pending); seen so in code-server 1.139, where our participant
// gets the steering message as a new request only after the running one returned. Links, not buttons: VS Code greys out a restored answer's buttons after a reload ("Button not
// available in restored chat"), while a trusted markdown link still runs its command. The model's tool
// results (fork ids, worktree paths) stay for the model: the user reads sentences from the fork's summary.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import type { ReportHeadline } from '../../common/forkNotification';
import type { ForkSummary } from '../../common/forks';
import { chatForkLine, diffStat, shortText } from '../../common/forkDisplay';
import { forkReview, forkState } from '../../common/protocol/forks';
import type { ForkEndsShown } from '../forks/forkEndsShown';
import type { RuntimeApi } from '../runtimeApi';
import { WORKTREE_COMMANDS } from '../worktrees/rootPlan';
import { forkItemMarkdown } from './forkItem';
import type { ForkLink } from './forkItem';
import { untrusted } from './renderEvents';

export const CHAT_FORK_COMMANDS = { open: 'forkAgents.openFork', stop: 'forkAgents.stopFork' } as const;

/** The only commands a fork item's markdown may run. */
const ITEM_COMMANDS = [CHAT_FORK_COMMANDS.open, CHAT_FORK_COMMANDS.stop, WORKTREE_COMMANDS.review, WORKTREE_COMMANDS.apply];

/** Clock skew between this window and the runtime is nil (same machine); a second of slack still. */
const CREATED_SLACK_MS = 1_000;

export class ChatForks {
  private readonly mine = new Map<string, ForkSummary>();
  private readonly listener: { dispose(): void };

  /**
   * `sessionId()` is the chat's session (a new chat's arrives with its first event); forks of it created
   * since `since` belong to this answer, and so do those passed to `adopt` (a /fork fork). `endsShown`
   * hears of the forks whose end this answer shows, so no notification repeats it.
   */
  constructor(
    private readonly runtime: RuntimeApi,
    private readonly stream: vscode.ChatResponseStream,
    private readonly sessionId: () => string | undefined,
    private readonly endsShown: ForkEndsShown,
    private readonly since = Date.now(),
  ) {
    this.listener = runtime.listen(forkState, ({ fork }) => this.onState(fork));
  }

  adopt(fork: ForkSummary): void {
    this.mine.set(fork.id, fork);
  }

  get count(): number {
    return this.mine.size;
  }

  /**
   * Says which reports arrived, from their headlines alone: written while the event is handled, so no
   * request to the runtime can make the sentence late (after the answer closed) or lose it.
   */
  reportsArrived(headlines: readonly ReportHeadline[]): void {
    for (const fork of headlines) {
      const outcome = fork.state === 'completed' ? 'finished' : `ended (${fork.state})`;
      this.stream.markdown(untrusted(`\n\n_The report of fork “${shortText(fork.name)}” arrived: it ${outcome} after ${fork.modelTurns} model turn${fork.modelTurns === 1 ? '' : 's'}; @fork has read it._\n\n`));
      this.stream.markdown(this.trusted(forkItemMarkdown(undefined, [{ label: 'Open Report', command: CHAT_FORK_COMMANDS.open, forkId: fork.forkId, tooltip: 'Open the report of this fork' }])));
    }
  }

  /**
   * Writes an item per fork of this answer as it is now, and returns: a fork that has ended gets its
   * outcome and changes; one still working gets what it is doing and where to follow it.
   */
  async show(): Promise<void> {
    const forks = [...this.mine.values()];
    // Said before anything is awaited: the fork-finished notification, deciding meanwhile, stays quiet.
    for (const fork of forks) if (isDone(fork)) this.endsShown.add(fork.id);
    let working = 0;
    for (const fork of forks) {
      if (isDone(fork)) await this.endItem(fork);
      else {
        working++;
        this.workingItem(fork);
      }
    }
    if (working > 0) {
      const which = working === 1 && forks.length === 1 ? 'It keeps' : working === 1 ? 'One keeps' : `${working} keep`;
      this.stream.markdown(untrusted(`\n\n_${which} working in the background while you go on chatting: the Forks view shows ${working === 1 ? 'it' : 'them'} live, and ${working === 1 ? 'its report arrives' : 'their reports arrive'} in a later answer._\n\n`));
    }
  }

  dispose(): void {
    this.listener.dispose();
  }

  private onState(fork: ForkSummary): void {
    const ours = this.mine.has(fork.id)
      || (fork.parentSessionId === this.sessionId() && Date.parse(fork.createdAt) >= this.since - CREATED_SLACK_MS);
    if (ours) this.mine.set(fork.id, fork);
  }

  /** A fork still at work: its line, and Open / Review / Apply / Stop (each says at the click what it can do then). */
  private workingItem(fork: ForkSummary): void {
    const links: ForkLink[] = [{ label: 'Open', command: CHAT_FORK_COMMANDS.open, forkId: fork.id, tooltip: 'Open its transcript so far and its row in the Forks view' }];
    if (fork.worktree && !fork.worktree.discarded) {
      links.push({ label: 'Review', command: WORKTREE_COMMANDS.review, forkId: fork.id, tooltip: 'Review the changes it has made so far' });
      links.push({ label: 'Apply', command: WORKTREE_COMMANDS.apply, forkId: fork.id, tooltip: 'Apply its changes to this folder once it has finished' });
    }
    links.push({ label: 'Stop', command: CHAT_FORK_COMMANDS.stop, forkId: fork.id, tooltip: 'Stop this fork' });
    this.stream.markdown(this.trusted(forkItemMarkdown(chatForkLine(fork), links)));
    if (fork.state === 'waiting-for-approval') {
      this.stream.markdown(untrusted(`\n\n_“${shortText(fork.name)}” waits for your approval: answer in its notification or in the Forks view._\n\n`));
    }
  }

  /** A fork that has ended: the outcome, its changes, and what to do with them. */
  private async endItem(fork: ForkSummary): Promise<void> {
    const stat = fork.worktree && !fork.worktree.discarded ? await this.diffOf(fork.id) : undefined;
    const paused = fork.state === 'paused-budget' ? ` — ${fork.pausedReason ?? 'its budget is reached'}` : '';
    const open = fork.report ? 'Open Report' : 'Open';
    const links: ForkLink[] = [{ label: open, command: CHAT_FORK_COMMANDS.open, forkId: fork.id, tooltip: fork.report ? 'Open its report' : 'Open its transcript' }];
    if (stat && (stat.added > 0 || stat.removed > 0)) {
      links.push({ label: 'Review', command: WORKTREE_COMMANDS.review, forkId: fork.id, tooltip: 'Review its changes' });
      if (fork.state === 'completed') links.push({ label: 'Apply', command: WORKTREE_COMMANDS.apply, forkId: fork.id, tooltip: 'Apply its changes to this folder' });
    }
    this.stream.markdown(this.trusted(forkItemMarkdown(`${chatForkLine(fork, stat)}${paused}`, links)));
  }

  private trusted(text: string): vscode.MarkdownString {
    const markdown = new vscode.MarkdownString(text);
    markdown.isTrusted = { enabledCommands: ITEM_COMMANDS };
    markdown.supportHtml = false;
    return markdown;
  }

  private async diffOf(forkId: string): Promise<{ added: number; removed: number } | undefined> {
    try {
      return diffStat((await this.runtime.request(forkReview, { forkId })).patch);
    } catch {
      return undefined;
    }
  }
}

function isDone(fork: ForkSummary): boolean {
  return isTerminal(fork.state) || fork.state === 'paused-budget' || fork.state === 'interrupted';
}
