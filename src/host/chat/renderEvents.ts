// Applies a turn's render operations to the chat response stream, and closes the response.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatErrorView } from './chatErrors';
import type { RenderOp } from './eventView';
import type { ChatSessionMetadata } from './sessionMapping';

export function renderOps(stream: vscode.ChatResponseStream, root: vscode.Uri, ops: readonly RenderOp[]): void {
  for (const op of ops) {
    switch (op.kind) {
      case 'markdown':
        stream.markdown(untrusted(op.text));
        break;
      case 'progress':
        stream.progress(op.text);
        break;
      case 'anchor':
        stream.anchor(fileUri(root, op.path), op.path);
        break;
      case 'reference':
        stream.reference(fileUri(root, op.path));
        break;
    }
  }
}

export const FORK_FROM_HERE_COMMAND = 'forkAgents.forkFromHere';
export const FORK_FROM_HERE_TOOLTIP = 'Start a background fork that inherits the conversation up to this answer';

/** The error's action button or the Fork from here link, and the result VS Code keeps in the history. */
export function finishResponse(stream: vscode.ChatResponseStream, metadata: ChatSessionMetadata | undefined, error?: ChatErrorView): vscode.ChatResult {
  if (error?.action) stream.button(error.action);
  // A failed turn has nothing worth forking from; its metadata still lets the next request continue.
  if (!error && metadata?.lastEntryId) stream.markdown(forkFromHereLink(metadata.sessionId, metadata.lastEntryId));
  return error ? { errorDetails: { message: error.message }, metadata } : { metadata };
}

/**
 * A small link rather than a button: chat buttons are all large primary buttons, one under every answer,
 * and VS Code greys them out without a word once the window reloads. The link names its purpose on
 * hover, and trust is limited to this one command (the text is ours, not the model's).
 */
export function forkFromHereLink(sessionId: string, entryId: string): vscode.MarkdownString {
  const args = encodeURIComponent(JSON.stringify([{ sessionId, entryId }]));
  const markdown = new vscode.MarkdownString(`\n\n[$(repo-forked) Fork from here](command:${FORK_FROM_HERE_COMMAND}?${args} "${FORK_FROM_HERE_TOOLTIP}")`, true);
  markdown.isTrusted = { enabledCommands: [FORK_FROM_HERE_COMMAND] };
  markdown.supportHtml = false;
  return markdown;
}

/** Model output is untrusted: no command links, no HTML, no theme icons. */
export function untrusted(text: string): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(text, false);
  markdown.isTrusted = false;
  markdown.supportHtml = false;
  return markdown;
}

function fileUri(root: vscode.Uri, file: string): vscode.Uri {
  return path.isAbsolute(file) ? vscode.Uri.file(file) : vscode.Uri.joinPath(root, ...file.split(/[\\/]+/));
}
