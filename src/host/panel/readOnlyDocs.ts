// Read-only documents of the panel: a fork's transcript. A content provider (not an untitled document)
// so it cannot be edited or saved by accident; opening it again refreshes it.
import * as vscode from 'vscode';
import { sessionTranscript } from '../../common/protocol/runtime';
import type { RuntimeApi } from '../runtimeApi';
import { transcriptText } from './transcriptText';

export const DOC_SCHEME = 'fork-agents';

export type OpenReadOnly = (kind: 'transcript', id: string, title: string, language: string) => Promise<void>;

export function registerReadOnlyDocs(context: vscode.ExtensionContext, runtime: RuntimeApi): OpenReadOnly {
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = {
    onDidChange: changed.event,
    async provideTextDocumentContent(uri) {
      const [kind, id] = uri.path.split('/').filter(Boolean);
      if (kind === 'transcript') return transcriptText(await runtime.request(sessionTranscript, { sessionId: id }));
      return `Unknown document ${uri.toString()}`;
    },
  };
  context.subscriptions.push(changed, vscode.workspace.registerTextDocumentContentProvider(DOC_SCHEME, provider));
  return async (kind, id, title, language) => {
    // The last path segment is the editor tab's title.
    const uri = vscode.Uri.from({ scheme: DOC_SCHEME, path: `/${kind}/${id}/${title.replace(/[\\/]/g, '-')}` });
    changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true });
  };
}
