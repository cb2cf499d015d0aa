// The row actions of a fork that leave the panel: its transcript, its folder, a worktree fork's review /
// apply / keep / discard (docs/design.md §4.8: the worktree commands do those; the panel only names the fork),
// and links in model output (asked about, never followed silently).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForkSummary } from '../../common/forks';
import type { ForkAction } from '../../common/protocol/webview';
import { WORKTREE_COMMANDS } from '../worktrees/rootPlan';
import { isOpenableLink } from './markdown';
import type { OpenReadOnly } from './readOnlyDocs';

export async function runForkAction(openDoc: OpenReadOnly, fork: ForkSummary, action: ForkAction): Promise<void> {
  switch (action) {
    case 'transcript':
      return openDoc('transcript', fork.id, `${fork.name} (transcript).md`, 'markdown');
    case 'root':
      return revealRoot(fork);
    case 'review':
    case 'apply':
    case 'keep':
    case 'discard':
      await vscode.commands.executeCommand(WORKTREE_COMMANDS[action], { forkId: fork.id });
  }
}

async function revealRoot(fork: ForkSummary): Promise<void> {
  const uri = vscode.Uri.file(fork.root);
  const inWorkspace = (vscode.workspace.workspaceFolders ?? []).some(folder => isInside(fork.root, folder.uri.fsPath));
  if (inWorkspace) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return;
  }
  const add = 'Add to Workspace';
  const open = 'Open in New Window';
  const choice = await vscode.window.showInformationMessage(`The fork works in ${fork.root}, outside this workspace.`, add, open);
  if (choice === add) {
    const count = vscode.workspace.workspaceFolders?.length ?? 0;
    vscode.workspace.updateWorkspaceFolders(count, 0, { uri, name: `Fork: ${fork.name}` });
  } else if (choice === open) {
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
  }
}

/** A link clicked in model output: only http(s)/mailto, and only after the user says so. */
export async function openLinkAfterAsking(href: string): Promise<void> {
  if (!isOpenableLink(href)) return;
  const ok = 'Open Link';
  const choice = await vscode.window.showWarningMessage('Open a link from a fork\'s output?', { modal: true, detail: href }, ok);
  if (choice === ok) await vscode.env.openExternal(vscode.Uri.parse(href, true));
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
