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
export const REWIND_HERE_COMMAND = 'forkAgents.rewindHere';
export const REWIND_HERE_TOOLTIP = 'Put the chat\'s files and conversation back to this answer (you can undo it)';

/** The error's action button or the Fork from here / Rewind to here links, and the result VS Code keeps in the history. */
export function finishResponse(stream: vscode.ChatResponseStream, metadata: ChatSessionMetadata | undefined, error?: ChatErrorView): vscode.ChatResult {
  if (error?.action) stream.button(error.action);
  // A failed turn has nothing worth forking from; its metadata still lets the next request continue.
  if (!error && metadata?.lastEntryId) stream.markdown(answerLinks(metadata.sessionId, metadata.lastEntryId));
  return error ? { errorDetails: { message: error.message }, metadata } : { metadata };
}

/**
 * Small links rather than buttons: chat buttons are all large primary buttons, two under every answer,
 * and VS Code greys them out without a word once the window reloads. Each link names its purpose on
 * hover, and trust is limited to these two commands (the text is ours, not the model's).
 */
export function answerLinks(sessionId: string, entryId: string): vscode.MarkdownString {
  const args = encodeURIComponent(JSON.stringify([{ sessionId, entryId }]));
  const link = (label: string, command: string, tooltip: string) => `[${label}](command:${command}?${args} "${tooltip}")`;
  const markdown = new vscode.MarkdownString(
    `\n\n${link('Fork from here', FORK_FROM_HERE_COMMAND, FORK_FROM_HERE_TOOLTIP)} · ${link('Rewind to here', REWIND_HERE_COMMAND, REWIND_HERE_TOOLTIP)}`,
  );
  markdown.isTrusted = { enabledCommands: [FORK_FROM_HERE_COMMAND, REWIND_HERE_COMMAND] };
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
