// Fork: Review / Apply / Keep / Discard for worktree forks (docs/design.md §4.8). Each takes `{ forkId }` (the
// Forks panel, the fork-finished notification) or asks with a quick pick, and returns what it did so
// callers and tests can follow up.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForkSummary } from '../../common/forks';
import { isTerminal } from '../../common/forks';
import { forkApply, forkDiscard, forkKeep, forkList } from '../../common/protocol/forks';
import type { ForkApplyResult } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import type { ForkRoots } from './forkRoots';
import { reviewFork } from './reviewFork';
import { WORKTREE_COMMANDS, actionableForks, forkIdOf } from './rootPlan';
import type { ForkNeed, LiveWorktreeFork } from './rootPlan';
import { folderOf } from './workspaceFolders';

const MARKERS = 'Apply with Conflict Markers';

export function registerWorktreeCommands(context: vscode.ExtensionContext, runtime: RuntimeApi, roots: ForkRoots): void {
  const command = <R>(id: string, verb: string, need: ForkNeed, run: (fork: LiveWorktreeFork) => Promise<R>) =>
    vscode.commands.registerCommand(id, async (arg?: unknown) => {
      let fork: LiveWorktreeFork | undefined;
      try {
        fork = await chooseFork(runtime, arg, verb, need);
        return fork ? await run(fork) : undefined;
      } catch (error) {
        void vscode.window.showErrorMessage(`Could not ${verb.toLowerCase()} ${fork ? `fork "${fork.name}"` : 'the fork'}: ${messageOf(error)}`);
        return undefined;
      }
    });
  context.subscriptions.push(
    command(WORKTREE_COMMANDS.review, 'Review', 'any', fork => reviewFork(runtime, fork)),
    command(WORKTREE_COMMANDS.apply, 'Apply', 'finished', fork => apply(runtime, roots, fork)),
    command(WORKTREE_COMMANDS.keep, 'Keep', 'finished', fork => keep(runtime, roots, fork)),
    command(WORKTREE_COMMANDS.discard, 'Discard', 'any', fork => discard(runtime, roots, fork)),
  );
}

async function chooseFork(runtime: RuntimeApi, arg: unknown, verb: string, need: ForkNeed): Promise<LiveWorktreeFork | undefined> {
  const { forks } = await runtime.request(forkList, {});
  const candidates = actionableForks(forks, need);
  const wanted = forkIdOf(arg);
  if (wanted) {
    const fork = forks.find(f => f.id === wanted);
    if (!fork) throw new Error(`there is no fork with id ${wanted}.`);
    const match = candidates.find(f => f.id === wanted);
    if (!match) throw new Error(whyNot(fork, need));
    return match;
  }
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(need === 'finished' ? 'No finished fork has a worktree to act on.' : 'No fork has a worktree.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map(fork => ({ label: fork.name, description: `${fork.state} · ${fork.worktree.branch}`, detail: fork.directive, fork })),
    { title: `${verb} a worktree fork`, placeHolder: 'Which fork?', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.fork;
}

function whyNot(fork: ForkSummary, need: ForkNeed): string {
  if (!fork.worktree) return `it works in the shared folder (isolation "shared"), not in a worktree.`;
  if (fork.worktree.discarded) return 'its worktree was discarded.';
  return need === 'finished' && !isTerminal(fork.state) ? `it is still ${fork.state}; wait for it to finish or stop it first.` : 'it cannot be used here.';
}

/** Nothing is overwritten silently: with conflicts nothing is written unless the user asks for markers. */
async function apply(runtime: RuntimeApi, roots: ForkRoots, fork: LiveWorktreeFork): Promise<ForkApplyResult> {
  const result = await runtime.request(forkApply, { forkId: fork.id, onConflict: 'refuse' });
  if (result.conflicts.length === 0) {
    // Its changes are in the main tree now: the fork's copy of the project leaves the Explorer.
    await roots.removeSettledRoot(fork);
    void vscode.window.showInformationMessage(result.message || `Applied ${result.applied.length} file(s) from fork "${fork.name}".`);
    return result;
  }
  // The runtime's message names each conflicting file and why.
  const choice = await vscode.window.showWarningMessage(result.message, MARKERS, 'Review');
  if (choice === 'Review') await reviewFork(runtime, fork);
  if (choice !== MARKERS) return result;
  const marked = await runtime.request(forkApply, { forkId: fork.id, onConflict: 'markers' });
  await roots.removeSettledRoot(fork);
  for (const file of marked.withMarkers.slice(0, 10)) {
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(fork.worktree.repoRoot, file)), { preview: false });
  }
  void vscode.window.showWarningMessage(marked.message || `Applied fork "${fork.name}" with conflict markers in ${marked.withMarkers.length} file(s).`);
  return marked;
}

async function keep(runtime: RuntimeApi, roots: ForkRoots, fork: LiveWorktreeFork): Promise<{ branch: string; commit: string }> {
  const kept = await runtime.request(forkKeep, { forkId: fork.id });
  // The branch holds the work; the folder stays on disk (the message says where) but not in the Explorer.
  await roots.removeSettledRoot(fork);
  const copy = 'Copy Branch Name';
  void vscode.window
    .showInformationMessage(`Kept fork "${fork.name}" on branch ${kept.branch} (${kept.commit.slice(0, 8)}); its worktree stays at ${fork.worktree.path}.`, copy)
    .then(choice => (choice === copy ? vscode.env.clipboard.writeText(kept.branch) : undefined));
  return kept;
}

async function discard(runtime: RuntimeApi, roots: ForkRoots, fork: LiveWorktreeFork): Promise<boolean> {
  const ok = 'Discard';
  const choice = await vscode.window.showWarningMessage(
    `Discard fork "${fork.name}"?`,
    { modal: true, detail: `Its worktree ${fork.worktree.path} and branch ${fork.worktree.branch} are deleted${isTerminal(fork.state) ? '' : ' and the fork is stopped'}; changes that were not applied are lost.` },
    ok,
  );
  if (choice !== ok) return false;
  // The root goes first, so the Explorer and file watchers let go of the folder before it is deleted.
  // Removing folder 0 restarts the extension host, which would cut this short: then the runtime goes first.
  let ended: number | undefined;
  if (folderOf(fork.worktree.path)?.index === 0) {
    ended = (await runtime.request(forkDiscard, { forkId: fork.id })).endedProcesses;
    await roots.removeRootOf(fork);
  } else {
    await roots.removeRootOf(fork);
    ended = (await runtime.request(forkDiscard, { forkId: fork.id })).endedProcesses;
  }
  const processes = ended ? ` Ended ${ended} process${ended === 1 ? '' : 'es'} it left running.` : '';
  void vscode.window.showInformationMessage(`Discarded fork "${fork.name}": its worktree and branch ${fork.worktree.branch} are deleted.${processes}`);
  return true;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
