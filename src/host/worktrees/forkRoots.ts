// A worktree fork's folder becomes a workspace root named after the fork (docs/design.md §4.8), once per fork and,
// by default, only once the fork changes files (`fork.worktree.addToWorkspace`, rootRules.ts); it leaves on
// Apply, Keep or Discard. A single-folder window reloads when it gains its first extra root, so the user is
// asked once how to handle that; forks keep running through the reload because the runtime is detached (docs/design.md §2).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AgentEvent } from '../../common/agentEvents';
import type { ForkSummary } from '../../common/forks';
import { hasLiveWorktree, pendingToAdopt, rootsToAdd } from './rootPlan';
import type { PendingRoot, RootTarget } from './rootPlan';
import { WriteWatch, becameSettled, isSettled } from './rootRules';
import type { RootsMode } from './rootRules';
import type { FolderUpdates } from './workspaceFolders';
import { currentFolders, folderOf, isSingleFolderWindow } from './workspaceFolders';

const ATTEMPTED_KEY = 'forkAgents.worktreeRoots.added';
const CHOICE_KEY = 'forkAgents.worktreeRoots.singleFolderChoice';
/** Global: the saved workspace is another workspace, with its own workspace state. */
const PENDING_KEY = 'forkAgents.worktreeRoots.afterSaveAs';

/** Forks whose changes are looked at when the window opens: the most recent; older ones wait for the panel. */
const MAX_CHECKED_AT_START = 20;

type Choice = 'add' | 'saveAs' | 'newWindow' | 'skip';
const LABELS = { add: 'Add to This Window', saveAs: 'Save Workspace As…', newWindow: 'Open in New Window' } as const;

export class ForkRoots {
  /** Forks whose root was added (or opened elsewhere) in this workspace: never added twice. */
  private readonly attempted: Set<string>;
  /** Forks already handled in this extension host, answered or not, so state updates do not ask again. */
  private readonly handled = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  /** The latest summary of each fork, to see Apply and Keep happen and to name a root when a fork writes. */
  private readonly latest = new Map<string, ForkSummary>();
  private readonly writes = new WriteWatch();

  constructor(
    private readonly state: vscode.Memento,
    private readonly global: vscode.Memento,
    private readonly folders: FolderUpdates,
    private readonly log: (message: string) => void,
    private readonly mode: () => RootsMode,
  ) {
    this.attempted = new Set(state.get<string[]>(ATTEMPTED_KEY, []));
  }

  /**
   * A `fork/state`: in "always" a live worktree gets its root; one applied, kept or discarded (here, in
   * the panel or by the CLI) loses it.
   */
  onFork(fork: ForkSummary): void {
    const before = this.latest.get(fork.id);
    this.latest.set(fork.id, fork);
    if (!fork.worktree) return;
    if (fork.worktree.discarded) void this.folders.remove([fork.worktree.path]);
    else if (becameSettled(before, fork)) void this.removeSettledRoot(fork);
    if (isSettled(fork)) this.writes.forget(fork.id);
    else if (this.mode() === 'always') this.ensure([fork]);
  }

  /** A `fork/event`: in "onWrite" the fork's first finished edit or command brings its root. */
  onForkEvent(forkId: string, event: AgentEvent): void {
    if (!this.writes.wrote(forkId, event) || this.mode() !== 'onWrite') return;
    const fork = this.latest.get(forkId);
    if (fork) this.ensure([fork]);
  }

  /**
   * Roots for forks that never got one: after activation (a reload included) in "always", the forks the
   * runtime lists; otherwise forks that wrote. Settled forks and forks already handled are skipped.
   */
  ensure(forks: readonly ForkSummary[]): void {
    const wanted = forks.filter(f => hasLiveWorktree(f) && !isSettled(f) && !this.handled.has(f.id) && !this.attempted.has(f.id));
    if (wanted.length === 0 || this.mode() === 'never') return;
    this.chain = this.chain.then(() => this.addRoots(wanted)).catch(error => this.log(`adding fork roots failed: ${String(error)}`));
  }

  /**
   * After activation: remembers every fork (so a later Apply or Keep is seen), then adds the roots the
   * mode asks for. In "onWrite", a fork that wrote while no window watched is known by its changed files.
   */
  async afterStart(forks: readonly ForkSummary[], changedFiles: (forkId: string) => Promise<number>): Promise<void> {
    for (const fork of forks) this.latest.set(fork.id, fork);
    if (this.mode() === 'always') return this.ensure(forks);
    if (this.mode() === 'never') return;
    const unseen = forks.filter(f => hasLiveWorktree(f) && !isSettled(f) && !this.attempted.has(f.id)).slice(-MAX_CHECKED_AT_START);
    const wrote: ForkSummary[] = [];
    for (const fork of unseen) if ((await changedFiles(fork.id).catch(() => 0)) > 0) wrote.push(fork);
    this.ensure(wrote);
  }

  /**
   * In the window that "Save Workspace As…" opened: the roots the single-folder window could not add.
   * They are added from what was recorded then, since this workspace may reach another runtime store.
   */
  async adoptPendingAfterSave(): Promise<void> {
    const pending = this.global.get<PendingRoot[]>(PENDING_KEY, []);
    if (pending.length === 0 || isSingleFolderWindow()) return;
    await this.global.update(PENDING_KEY, undefined);
    const targets = pendingToAdopt(pending, currentFolders(), Date.now(), p => fs.existsSync(p));
    for (const target of targets) this.handled.add(target.forkId);
    if (targets.length === 0) return;
    await this.remember(targets);
    await this.folders.add(targets);
  }

  /**
   * Applied or kept: the root goes, unless the window was opened on the worktree itself (folder 0),
   * where removing it would leave the window empty.
   */
  async removeSettledRoot(fork: ForkSummary): Promise<void> {
    if (fork.worktree && folderOf(fork.worktree.path)?.index !== 0) await this.removeRootOf(fork);
  }

  /** The command's "discard": the root goes now and is not brought back by a late state update. */
  async removeRootOf(fork: ForkSummary): Promise<void> {
    if (!fork.worktree) return;
    this.handled.add(fork.id);
    await this.folders.remove([fork.worktree.path]);
  }

  private async addRoots(forks: readonly ForkSummary[]): Promise<void> {
    const targets = rootsToAdd(forks, currentFolders(), new Set([...this.attempted, ...this.handled]));
    if (targets.length === 0) return;
    for (const target of targets) this.handled.add(target.forkId);
    const choice = isSingleFolderWindow() ? await this.singleFolderChoice(targets) : 'add';
    switch (choice) {
      case 'add':
        // Remembered before the change: a window that reloads without the root must not add it again.
        await this.remember(targets);
        await this.folders.add(targets);
        return;
      case 'saveAs':
        // Saving re-opens the window as the workspace; that activation adds the roots (adoptPendingAfterSave).
        await this.global.update(PENDING_KEY, targets.map(t => ({ ...t, at: Date.now() })));
        await vscode.commands.executeCommand('workbench.action.saveWorkspaceAs');
        // The pending roots are left for the re-opened window, which adopts and remembers them; this
        // extension host is usually shutting down by now (entering a workspace restarts it), and what it
        // wrote could hide the roots from that window. Unused (the save was cancelled), they expire.
        // An editor that kept this extension host gets them here; adopting skips roots already present.
        if (!isSingleFolderWindow()) await this.folders.add(targets);
        return;
      case 'newWindow':
        await this.remember(targets);
        for (const target of targets) await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(target.path), { forceNewWindow: true });
        return;
      case 'skip':
        return;
    }
  }

  /** Asked once per folder: the answer "add" or "new window" is remembered; "save as" changes the window anyway. */
  private async singleFolderChoice(targets: readonly RootTarget[]): Promise<Choice> {
    const remembered = this.state.get<Choice>(CHOICE_KEY);
    // After "Open in New Window", later forks are left alone: opening a window per fork would be worse.
    if (remembered === 'add') return 'add';
    if (remembered === 'newWindow') return 'skip';
    const name = targets[0].name.replace(/^Fork: /, '');
    const more = targets.length > 1 ? ` (and ${targets.length - 1} more)` : '';
    const answer = await vscode.window.showInformationMessage(
      `Fork "${name}"${more} works in its own git worktree. Adding it to this window turns the window into a multi-root workspace, ` +
      'which reloads it; running forks keep going. Fork Agents asks this once.',
      LABELS.add, LABELS.saveAs, LABELS.newWindow,
    );
    const choice: Choice = answer === LABELS.add ? 'add' : answer === LABELS.saveAs ? 'saveAs' : answer === LABELS.newWindow ? 'newWindow' : 'skip';
    if (choice === 'add' || choice === 'newWindow') await this.state.update(CHOICE_KEY, choice);
    return choice;
  }

  private async remember(targets: readonly RootTarget[]): Promise<void> {
    for (const target of targets) this.attempted.add(target.forkId);
    await this.state.update(ATTEMPTED_KEY, [...this.attempted].slice(-500));
  }
}
