// Adding and removing workspace folders one change at a time: VS Code ignores an
// updateWorkspaceFolders call made before the previous one's onDidChangeWorkspaceFolders fired.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FolderInfo, RootTarget } from './rootPlan';

/** A change that never reports back (the window reloads, or VS Code refused it) must not block the next. */
const CHANGE_TIMEOUT_MS = 5000;

export function realPath(fsPath: string): string {
  try {
    return fs.realpathSync.native(fsPath);
  } catch {
    return path.resolve(fsPath);
  }
}

/** The window's folders by real path (fork worktree paths are real paths). */
export function currentFolders(): FolderInfo[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter(f => f.uri.scheme === 'file')
    .map(f => ({ index: f.index, path: realPath(f.uri.fsPath), name: f.name }));
}

export function folderOf(fsPath: string): vscode.WorkspaceFolder | undefined {
  return (vscode.workspace.workspaceFolders ?? []).find(f => f.uri.scheme === 'file' && realPath(f.uri.fsPath) === fsPath);
}

/** A single-folder (or empty) window: its first extra folder turns it into a workspace and reloads it. */
export function isSingleFolderWindow(): boolean {
  return vscode.workspace.workspaceFile === undefined;
}

export class FolderUpdates {
  private chain: Promise<unknown> = Promise.resolve();

  /** Appends the folders in one change (appending never touches folder 0, whose change restarts extensions). */
  add(targets: readonly RootTarget[]): Promise<boolean> {
    return this.serial(() => {
      const fresh = targets.filter(t => !folderOf(t.path));
      if (fresh.length === 0) return Promise.resolve(true);
      const start = vscode.workspace.workspaceFolders?.length ?? 0;
      return applyChange(() => vscode.workspace.updateWorkspaceFolders(start, 0, ...fresh.map(t => ({ uri: vscode.Uri.file(t.path), name: t.name }))));
    });
  }

  /** Removes each folder (by real path) that is still there. */
  remove(paths: readonly string[]): Promise<void> {
    return this.serial(async () => {
      for (const target of paths) {
        const folder = folderOf(target);
        if (folder) await applyChange(() => vscode.workspace.updateWorkspaceFolders(folder.index, 1));
      }
    });
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.chain.then(step, step);
    // Safe to drop: the chain only orders the steps; each step's caller gets its own result from `next`.
    this.chain = next.catch(() => undefined);
    return next;
  }
}

async function applyChange(update: () => boolean): Promise<boolean> {
  let subscription: vscode.Disposable | undefined;
  let timer: NodeJS.Timeout | undefined;
  const changed = new Promise<void>(resolve => {
    subscription = vscode.workspace.onDidChangeWorkspaceFolders(() => resolve());
    timer = setTimeout(resolve, CHANGE_TIMEOUT_MS);
  });
  try {
    if (!update()) return false;
    await changed;
    return true;
  } finally {
    subscription?.dispose();
    clearTimeout(timer);
  }
}
