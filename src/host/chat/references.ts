// The chat request's references (`#file`, `#selection`, dragged files, pasted images, other variables) as
// PromptReferences for session/send. Files are read as the editor has them (unsaved changes included);
// folders and unreadable values are named but not sent. The runtime applies the size cap.
import * as vscode from 'vscode';
import type { PromptReference } from '../../common/references';
import { MAX_REFERENCE_CHARS } from '../../common/references';

export async function collectReferences(references: readonly vscode.ChatPromptReference[], root: vscode.Uri): Promise<PromptReference[]> {
  const out: PromptReference[] = [];
  for (const ref of references) {
    try {
      const item = await toReference(ref, root);
      if (item) out.push(item);
    } catch (error) {
      out.push({ kind: 'text', name: ref.id, text: `(could not be read: ${error instanceof Error ? error.message : String(error)})` });
    }
  }
  return out;
}

async function toReference(ref: vscode.ChatPromptReference, root: vscode.Uri): Promise<PromptReference | undefined> {
  const value = ref.value;
  if (value instanceof vscode.Location) {
    const doc = await vscode.workspace.openTextDocument(value.uri);
    const range = value.range;
    return { kind: 'file', path: relative(value.uri, root), text: doc.getText(range), range: { startLine: range.start.line + 1, endLine: range.end.line + 1 } };
  }
  if (value instanceof vscode.Uri) {
    const stat = await vscode.workspace.fs.stat(value);
    if (stat.type & vscode.FileType.Directory) return { kind: 'text', name: relative(value, root), text: '(a folder: list or read its files with the tools)' };
    if (stat.size > MAX_REFERENCE_CHARS * 4) return { kind: 'text', name: relative(value, root), text: `(a file of ${stat.size} bytes: too large to attach, read it with the tools)` };
    const doc = await vscode.workspace.openTextDocument(value);
    return { kind: 'file', path: relative(value, root), text: doc.getText() };
  }
  if (typeof value === 'string') return { kind: 'text', name: ref.modelDescription ?? ref.id, text: value };
  const binary = value as { mimeType?: unknown; data?: unknown };
  if (binary && typeof binary.mimeType === 'string' && typeof binary.data === 'function') {
    const bytes = (await (binary.data as () => Thenable<Uint8Array>)()) as Uint8Array;
    return { kind: 'image', name: ref.modelDescription ?? ref.id, mimeType: binary.mimeType, data: Buffer.from(bytes).toString('base64') };
  }
  return undefined;
}

function relative(uri: vscode.Uri, root: vscode.Uri): string {
  const rel = vscode.workspace.asRelativePath(uri, false);
  return uri.scheme === 'file' && rel === uri.fsPath && !uri.fsPath.startsWith(root.fsPath) ? uri.fsPath : rel;
}
