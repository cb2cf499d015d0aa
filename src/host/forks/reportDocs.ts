// A fork's report as a read-only document: a content provider's URI, not an untitled document, so the
// editor never counts it as unsaved ("Untitled-1" with a dirty dot) and closing it never asks to save. The
// text is read from the runtime's fork list each time the editor asks, so a report reopened after a reload
// or after the fork was continued is the current one. Model output is untrusted: the editor shows it as
// markdown source, nothing in it runs.
import * as vscode from 'vscode';
import type { ForkSummary } from '../../common/forks';
import { forkList } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';

export const REPORT_SCHEME = 'fork-report';

export type ShowReport = (fork: Pick<ForkSummary, 'id' | 'name'>) => Promise<void>;

export function reportText(fork: Pick<ForkSummary, 'name' | 'report' | 'error'>): string {
  return `# Fork: ${fork.name}\n\n${fork.report ?? fork.error ?? ''}\n`;
}

export function registerReportDocs(context: vscode.ExtensionContext, runtime: RuntimeApi): ShowReport {
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = {
    onDidChange: changed.event,
    async provideTextDocumentContent(uri) {
      const forkId = uri.path.split('/').filter(Boolean)[0];
      const fork = (await runtime.request(forkList, {})).forks.find(f => f.id === forkId);
      return fork ? reportText(fork) : `The fork ${forkId} is no longer in the store (it was deleted).\n`;
    },
  };
  context.subscriptions.push(changed, vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, provider));
  return async fork => {
    // The last path segment is the editor tab's title.
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${fork.id}/${fork.name.replace(/[\\/]/g, '-').slice(0, 80)} (report).md` });
    changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: true });
  };
}
