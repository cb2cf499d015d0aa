// "Diff since here" on a turn in the Forks panel: VS Code's multi-diff editor from the turn's start
// checkpoint to the files now. The left side of each file is served read-only from the runtime
// (`session/checkpointFile`) under the `fork-checkpoint:` scheme; the right side is the file in the folder.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sessionCheckpointFile, sessionDiffSince } from '../../common/protocol/checkpoints';
import type { TurnFile } from '../../common/protocol/checkpoints';
import type { RuntimeApi } from '../runtimeApi';

export const CHECKPOINT_SCHEME = 'fork-checkpoint';

/**
 * `fork-checkpoint:<the file's own path>?session=<id>&tree=<tree>&path=<relative path>`: the same path as
 * the file on the right, so the diff header names one file (not a rename) unless it was renamed.
 */
function checkpointUri(sessionId: string, tree: string, workTree: string, filePath: string): vscode.Uri {
  return vscode.Uri.file(path.join(workTree, filePath)).with({ scheme: CHECKPOINT_SCHEME, query: new URLSearchParams({ session: sessionId, tree, path: filePath }).toString() });
}

/** Read-only by construction: a content provider's documents cannot be saved. */
export function registerCheckpointContent(runtime: RuntimeApi): vscode.Disposable {
  const provider: vscode.TextDocumentContentProvider = {
    async provideTextDocumentContent(uri) {
      const query = new URLSearchParams(uri.query);
      const sessionId = query.get('session');
      const tree = query.get('tree');
      const filePath = query.get('path');
      // The empty side of an added or deleted file in the one-diff-per-file fallback.
      if (!sessionId || !tree || !filePath) return '';
      const file = await runtime.request(sessionCheckpointFile, { sessionId, tree, path: filePath });
      if (!file.exists) return '';
      return file.binary ? '(binary file: not shown)\n' : (file.content ?? '');
    },
  };
  return vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider);
}

type Change = [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined];

function changesOf(sessionId: string, tree: string, workTree: string, files: readonly TurnFile[]): Change[] {
  return files.map(file => {
    const now = vscode.Uri.file(path.join(workTree, file.path));
    const before = file.status === 'added' ? undefined : checkpointUri(sessionId, tree, workTree, file.oldPath ?? file.path);
    const after = file.status === 'deleted' ? undefined : now;
    return [now, before, after];
  });
}

/** Opens the diff; returns how many files it shows (none: a message says nothing changed). */
export async function diffSinceHere(runtime: RuntimeApi, sessionId: string, startEntryId: string | null, label: string): Promise<number> {
  const since = await runtime.request(sessionDiffSince, { sessionId, startEntryId });
  if (since.files.length === 0) {
    void vscode.window.showInformationMessage(`No file changed since ${label}.`);
    return 0;
  }
  const changes = changesOf(sessionId, since.tree, since.workTree, since.files);
  try {
    // The multi-diff editor adds the file count itself.
    await vscode.commands.executeCommand('vscode.changes', `Since ${label}`, changes);
  } catch {
    // Editors without the multi-diff editor: one diff per file, an empty side for added or deleted files.
    for (const [resource, before, after] of changes.slice(0, 20)) {
      const empty = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path.basename(resource.fsPath)}.absent` });
      await vscode.commands.executeCommand('vscode.diff', before ?? empty, after ?? empty, `${path.basename(resource.fsPath)} (since ${label})`, { preview: false });
    }
  }
  return since.files.length;
}
