// Worktree forks in the editor (docs/design.md §4.8): their folders as workspace roots, the review /
// apply / keep / discard commands, and the start-up pass that tidies roots and reports orphaned worktrees.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { forkEvent, forkList, forkReview, forkState, worktreeList } from '../../common/protocol/forks';
import type { WorktreeListing } from '../../common/protocol/forks';
import { FileMemento, durableMemento } from '../fileMemento';
import type { RuntimeApi } from '../runtimeApi';
import { ForkRoots } from './forkRoots';
import { rootsModeOf } from './rootRules';
import type { RootsMode } from './rootRules';
import { registerBaseContent } from './reviewFork';
import { foldersToDrop, foldersToPrune, keptOrphansText } from './rootPlan';
import { FolderUpdates, currentFolders } from './workspaceFolders';
import { registerWorktreeCommands } from './worktreeCommands';

const ANNOUNCED_ORPHANS_KEY = 'forkAgents.worktreeRoots.announcedOrphans';
/** Roots added, the single-folder answer, orphans reported (per first folder): written before the reload a new root causes. */
const WORKSPACE_STATE_FILE = 'worktree-roots.json';
/** Roots waiting for the window that "Save Workspace As…" opens (another workspace). */
const GLOBAL_STATE_FILE = 'worktree-roots-pending.json';

export function registerWorktrees(context: vscode.ExtensionContext, runtime: RuntimeApi, output: vscode.LogOutputChannel, storeDir: string): void {
  const folders = new FolderUpdates();
  // Beside the runtime's store, which is keyed by the first folder: a single-folder window that becomes a
  // workspace keeps its folder but gets a new storageUri, and must find what it recorded before.
  const workspaceState = new FileMemento(path.join(storeDir, 'editor', WORKSPACE_STATE_FILE));
  const globalState = durableMemento(context.globalStorageUri, GLOBAL_STATE_FILE, context.globalState);
  const roots = new ForkRoots(workspaceState, globalState, folders, message => output.warn(message), rootsMode);
  registerWorktreeCommands(context, runtime, roots);
  context.subscriptions.push(
    registerBaseContent(runtime),
    runtime.listen(forkState, params => roots.onFork(params.fork)),
    runtime.listen(forkEvent, params => roots.onForkEvent(params.forkId, params.event)),
  );
  startUp(workspaceState, runtime, folders, roots).catch(error => output.warn(`worktree start-up pass failed: ${error instanceof Error ? error.message : String(error)}`));
}

/** `fork.worktree.addToWorkspace`, read at each decision so a change applies to the next fork. */
function rootsMode(): RootsMode {
  return rootsModeOf(vscode.workspace.getConfiguration('fork').get('worktree.addToWorkspace'));
}

/** Runs after every activation, so also after the reload that adding the first root may cause. */
async function startUp(workspaceState: vscode.Memento, runtime: RuntimeApi, folders: FolderUpdates, roots: ForkRoots): Promise<void> {
  await roots.adoptPendingAfterSave();
  const { forks } = await runtime.request(forkList, {});
  const pruned = new Map<string, WorktreeListing>();
  const kept = new Map<string, WorktreeListing>();
  for (const root of new Set(foldersToPrune(currentFolders(), forks))) {
    const listing = await runtime.request(worktreeList, { root });
    for (const l of listing.pruned) pruned.set(l.path, l);
    for (const l of listing.kept) kept.set(l.path, l);
  }
  const drop = foldersToDrop(currentFolders(), forks, { pruned: [...pruned.values()], exists: p => fs.existsSync(p) });
  await folders.remove(drop.map(f => f.path));
  await roots.afterStart(forks, async forkId => (await runtime.request(forkReview, { forkId })).files.length);
  await announceKept(workspaceState, [...kept.values()].filter(l => !pruned.has(l.path)));
}

/** One notification for worktrees kept for their unapplied changes; each is reported once per workspace. */
async function announceKept(state: vscode.Memento, kept: WorktreeListing[]): Promise<void> {
  const announced = new Set(state.get<string[]>(ANNOUNCED_ORPHANS_KEY, []));
  const fresh = kept.filter(l => !announced.has(`${l.path}@${l.branch}`));
  if (fresh.length === 0) return;
  for (const l of fresh) announced.add(`${l.path}@${l.branch}`);
  await state.update(ANNOUNCED_ORPHANS_KEY, [...announced].slice(-200));
  const { message, details } = keptOrphansText(fresh);
  const show = 'Show Details';
  if ((await vscode.window.showWarningMessage(message, show)) !== show) return;
  const doc = await vscode.workspace.openTextDocument({ content: details, language: 'markdown' });
  await vscode.window.showTextDocument(doc, { preview: true });
}
