// `@fork` in the Chat view: one chat request = one `session/send` turn in the runtime,
// streamed back as text, tool progress and file anchors, ending with a Fork from here button.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { sessionCancel, sessionSend } from '../../common/protocol/runtime';
import { LM_VENDOR } from '../lm/provider';
import { collectReferences } from './references';
import type { SendResult } from '../../common/protocol/runtime';
import { compactCommand } from './compactCommand';
import { forkCommand } from './forkCommand';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';
import type { CurrentChatSession } from '../panel/currentSession';
import { NO_FOLDER_MESSAGE, requestErrorView, turnErrorView } from './chatErrors';
import { TurnView, contextNote, costNote, stopNote } from './eventView';
import { finishResponse, renderOps, untrusted } from './renderEvents';
import { ChatForks } from './chatForks';
import type { ChatApprovals } from './chatApprovals';
import type { ForkEndsShown } from '../forks/forkEndsShown';
import { continuationFrom, sessionMetadata } from './sessionMapping';

export const PARTICIPANT_ID = 'fork-agents.fork';

interface Deps { runtime: RuntimeApi; settings: HostSettings; endsShown: ForkEndsShown; approvals: ChatApprovals; current?: CurrentChatSession }

export function registerChatParticipant(context: vscode.ExtensionContext, deps: Deps): void {
  const { current } = deps;
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chat, stream, token) => {
    const result = await handleRequest(deps, request, chat, stream, token);
    // The Forks panel and the palette fork the session of the latest @fork response.
    current?.noteResult(result.metadata);
    return result;
  });
  participant.iconPath = new vscode.ThemeIcon('repo-forked');
  context.subscriptions.push(participant);
}

async function handleRequest(
  deps: Deps,
  request: vscode.ChatRequest,
  chat: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const continuation = continuationFrom(chat.history, PARTICIPANT_ID);
  // Responses that run no turn carry the mapping forward, so the next request still continues the session.
  const carried = sessionMetadata({ sessionId: continuation.sessionId, lastEntryId: continuation.afterEntryId });
  if (request.command === 'fork') return forkCommand(deps, request.prompt, continuation.sessionId, stream, carried);
  if (request.command === 'compact') return compactCommand(deps, request.prompt, continuation.sessionId, stream, carried);
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root) return finishResponse(stream, carried, { message: NO_FOLDER_MESSAGE });
  if (request.prompt.trim() === '') {
    stream.markdown('Ask @fork something, for example `@fork list the files and read README.md`.');
    return { metadata: carried };
  }

  const view = new TurnView();
  view.sessionId = continuation.sessionId;
  const turnId = randomUUID();
  let cancelSent = false;
  const cancel = () => {
    if (cancelSent || !view.sessionId) return;
    cancelSent = true;
    // Safe to drop: the turn may have ended or the runtime gone meanwhile: nothing left to cancel.
    deps.runtime.request(sessionCancel, { sessionId: view.sessionId }).catch(() => undefined);
  };
  const forks = new ChatForks(deps.runtime, stream, () => view.sessionId, deps.endsShown);
  // The turn's own approvals ask in this answer (chat/chatApprovals.ts).
  const asking = deps.approvals.open(turnId, stream, token);
  const events = deps.runtime.onEvent(turnId, params => {
    const ops = view.apply(params);
    // A new session's id arrives with its first event: a cancel asked for before then is sent now.
    if (token.isCancellationRequested) return cancel();
    for (const op of ops) {
      if (op.kind === 'reports') forks.reportsArrived(op.headlines);
      else renderOps(stream, root, [op]);
    }
  });
  let cancellation: vscode.Disposable | undefined = token.onCancellationRequested(cancel);
  try {
    const result: SendResult = await deps.runtime.request(sessionSend, {
      sessionId: continuation.sessionId,
      root: root.fsPath,
      prompt: request.prompt,
      turnId,
      afterEntryId: continuation.afterEntryId,
      references: await collectReferences(request.references, root),
      // The Chat view's pick, when it is one of ours; a continued session keeps its own model.
      ...(request.model?.vendor === LM_VENDOR ? { model: request.model.id } : {}),
    });
    const metadata = sessionMetadata({
      sessionId: result.sessionId,
      promptEntryId: result.promptEntryId,
      lastEntryId: result.lastEntryId ?? view.lastEntryId,
      usage: view.usage,
    });
    if (token.isCancellationRequested) return { metadata };
    // The turn is over: from here on there is no turn to stop.
    events.dispose();
    cancellation.dispose();
    cancellation = undefined;
    const note = [stopNote(result.stopReason), contextNote(view.context), costNote(result.cost, result.model ?? deps.settings.model())].filter(Boolean).join('') || undefined;
    // turn_end's error carries the HTTP status; the result's is the same error without it.
    const error = view.error ?? result.error;
    if (note && !error) stream.markdown(untrusted(note));
    deps.current?.noteResult(metadata);
    // The answer ends with the turn; forks still at work say so and go on in the Forks view.
    await forks.show();
    return finishResponse(stream, metadata, error ? turnErrorView(error, deps.settings.displayBaseUrl()) : undefined);
  } catch (error) {
    const metadata = sessionMetadata({ sessionId: view.sessionId, promptEntryId: view.promptEntryId, lastEntryId: view.lastEntryId ?? continuation.afterEntryId });
    if (token.isCancellationRequested) return { metadata };
    return finishResponse(stream, metadata, requestErrorView(error));
  } finally {
    events.dispose();
    cancellation?.dispose();
    asking.dispose();
    forks.dispose();
  }
}
