// The chat's `/compact [focus]`: summarise the conversation now.
import type * as vscode from 'vscode';
import { sessionCompact } from '../../common/protocol/runtime';
import type { RuntimeApi } from '../runtimeApi';
import { requestErrorView } from './chatErrors';
import { finishResponse, untrusted } from './renderEvents';
import type { ChatSessionMetadata } from './sessionMapping';
import { sessionMetadata } from './sessionMapping';

export async function compactCommand(
  deps: { runtime: RuntimeApi },
  focus: string,
  sessionId: string | undefined,
  stream: vscode.ChatResponseStream,
  metadata: ChatSessionMetadata | undefined,
): Promise<vscode.ChatResult> {
  if (!sessionId) return finishResponse(stream, metadata, { message: 'Nothing to compact yet: ask @fork something first.' });
  stream.progress('Summarising the conversation…');
  try {
    const result = await deps.runtime.request(sessionCompact, { sessionId, focus: focus.trim() || undefined });
    stream.markdown(untrusted(
      `Compacted: the next requests start from a summary instead of ${Math.round(result.tokensBefore / 1000)}k tokens of history. ` +
      'The full transcript is kept; forks with **All** inherit the summary, numeric windows do not.',
    ));
    // The summary is now the last entry: the next request continues from it.
    return { metadata: sessionMetadata({ ...metadata, sessionId, lastEntryId: result.summaryEntryId }) };
  } catch (error) {
    return finishResponse(stream, metadata, requestErrorView(error));
  }
}
