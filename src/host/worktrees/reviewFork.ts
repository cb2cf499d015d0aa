// Review a worktree fork's changes in VS Code's multi-diff editor: the left side of each file is its
// content at the fork's base, served read-only from the runtime (`fork/baseFile`) under the `fork-base:`
// scheme; the right side is the file in the fork's worktree.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForkSummary } from '../../common/forks';
import { forkBaseFile, forkReview } from '../../common/protocol/forks';
import type { ForkReviewResult } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';

export const BASE_SCHEME = 'fork-base';

/** `fork-base:/<path>?fork=<id>`: the path part is what tabs and the diff header show. */
export function baseUri(forkId: string, filePath: string): vscode.Uri {
  return vscode.Uri.from({ scheme: BASE_SCHEME, path: `/${filePath}`, query: new URLSearchParams({ fork: forkId }).toString() });
}

/** Read-only by construction: a content provider's documents cannot be saved. */
export function registerBaseContent(runtime: RuntimeApi): vscode.Disposable {
  const provider: vscode.TextDocumentContentProvider = {
    async provideTextDocumentContent(uri) {
      const forkId = new URLSearchParams(uri.query).get('fork');
      if (!forkId) return '';
      const base = await runtime.request(forkBaseFile, { forkId, path: uri.path.replace(/^\//, '') });
      if (!base.exists) return '';
      return base.binary ? '(binary file: not shown)\n' : (base.content ?? '');
    },
  };
  return vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, provider);
}

type Change = [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined];

function changesOf(fork: ForkSummary, review: ForkReviewResult): Change[] {
  return review.files.map(file => {
    const inFork = vscode.Uri.file(path.join(review.worktree, file.path));
    const before = file.status === 'added' ? undefined : baseUri(fork.id, file.path);
    const after = file.status === 'deleted' ? undefined : inFork;
    return [inFork, before, after];
  });
}

/** Opens the review; returns the files shown (none when the fork changed nothing). */
export async function reviewFork(runtime: RuntimeApi, fork: ForkSummary): Promise<string[]> {
  const review = await runtime.request(forkReview, { forkId: fork.id });
  if (review.files.length === 0) {
    void vscode.window.showInformationMessage(`Fork "${fork.name}" has not changed any file since it started (${review.branch}).`);
    return [];
  }
  // The multi-diff editor adds the file count itself.
  const title = `Fork changes: ${fork.name}`;
  const changes = changesOf(fork, review);
  try {
    await vscode.commands.executeCommand('vscode.changes', title, changes);
  } catch {
    // Editors without the multi-diff editor: one diff per file, an empty side for added or deleted files.
    for (const [resource, before, after] of changes.slice(0, 20)) {
      const empty = baseUri(fork.id, `${path.basename(resource.fsPath)}.absent`).with({ query: '' });
      await vscode.commands.executeCommand('vscode.diff', before ?? empty, after ?? empty, `${path.basename(resource.fsPath)} (fork ${fork.name})`, { preview: false });
    }
  }
  return review.files.map(f => f.path);
}
