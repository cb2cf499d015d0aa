// The chat's own approvals, inline in its answer (docs/design.md §4.6: the parent's approvals stay in the
// chat): a tool call of a turn that asks writes its title (the tool and its target), the call's input, and
// Allow / Deny buttons into that turn's answer, and the turn waits for a click. No modal: the question is
// where the user is already looking, and the chat goes on rendering. VS Code's stable chat API has no
// confirmation part: `ChatResponseStream.confirmation(title, message, data, buttons?)` and
// `ChatResponseConfirmationPart` are declared only in the proposed API (microsoft/vscode,
// src/vscode-dts/vscode.proposed.chatParticipantAdditions.d.ts at d9bc5b09ea14b6ff9d95445ce87de052d0ad9165,
// read 2026-12-02), and the stable `vscode.d.ts` we build against (@types/vscode 1.104, `ChatResponseStream`)
// has no such method. So the buttons run a command that answers the waiting call. Stopping the answer answers nothing: the call is not run, and the model hears
// that nobody answered rather than that the user said no.
import * as vscode from 'vscode';
import type { PermissionParams, PermissionResult } from '../../common/protocol/runtime';
import { ALLOW, DENY, approvalDetail, approvalMessage } from '../approvalText';
import type { ForkApprovalRoute } from '../approvals';
import { escapeMarkdown } from './forkItem';
import { untrusted } from './renderEvents';

export const CHAT_APPROVAL_COMMAND = 'forkAgents.answerChatApproval';

interface OpenTurn { stream: vscode.ChatResponseStream; token: vscode.CancellationToken }
interface Waiting { turnId: string; resolve(result: PermissionResult): void }

export class ChatApprovals implements ForkApprovalRoute {
  private readonly turns = new Map<string, OpenTurn>();
  private readonly waiting = new Map<string, Waiting>();

  /** The turn `turnId` renders into `stream` until the returned disposable is disposed. */
  open(turnId: string, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): vscode.Disposable {
    this.turns.set(turnId, { stream, token });
    const cancelled = token.onCancellationRequested(() => this.settleTurn(turnId, { approved: false, reason: 'the chat answer was stopped', unanswered: true }));
    return new vscode.Disposable(() => {
      cancelled.dispose();
      this.turns.delete(turnId);
      this.settleTurn(turnId, { approved: false, reason: 'the chat answer ended', unanswered: true });
    });
  }

  accepts(params: PermissionParams): boolean {
    return this.turns.has(params.turnId);
  }

  ask(params: PermissionParams): Promise<PermissionResult> {
    const turn = this.turns.get(params.turnId);
    if (!turn || turn.token.isCancellationRequested) return Promise.resolve({ approved: false, reason: 'the chat answer was stopped', unanswered: true });
    const title = approvalMessage(params.description);
    turn.stream.markdown(untrusted(`\n\n**${escapeMarkdown(title)}**\n\n`));
    const detail = new vscode.MarkdownString(undefined, false);
    detail.isTrusted = false;
    detail.supportHtml = false;
    detail.appendCodeblock(approvalDetail(params), 'text');
    turn.stream.markdown(detail);
    const args = (approved: boolean) => [{ callId: params.callId, approved }];
    turn.stream.button({ command: CHAT_APPROVAL_COMMAND, title: ALLOW, arguments: args(true), tooltip: `${ALLOW}: ${title}` });
    turn.stream.button({ command: CHAT_APPROVAL_COMMAND, title: DENY, arguments: args(false), tooltip: `${DENY}: ${title}` });
    return new Promise(resolve => this.waiting.set(params.callId, { turnId: params.turnId, resolve }));
  }

  /** A button's click; false when the call waits no longer (answered, or its answer has ended). */
  answer(callId: string, approved: boolean): boolean {
    const waiting = this.waiting.get(callId);
    if (!waiting) return false;
    this.turns.get(waiting.turnId)?.stream.markdown(untrusted(approved ? '\n\n_Allowed._\n\n' : '\n\n_Denied._\n\n'));
    return this.settle(callId, approved ? { approved: true } : { approved: false, reason: 'denied in the chat' });
  }

  private settleTurn(turnId: string, result: PermissionResult): void {
    for (const [callId, waiting] of this.waiting) if (waiting.turnId === turnId) this.settle(callId, result);
  }

  private settle(callId: string, result: PermissionResult): boolean {
    const waiting = this.waiting.get(callId);
    if (!waiting) return false;
    this.waiting.delete(callId);
    waiting.resolve(result);
    return true;
  }
}

export function registerChatApprovalCommand(context: vscode.ExtensionContext, approvals: ChatApprovals): void {
  context.subscriptions.push(vscode.commands.registerCommand(CHAT_APPROVAL_COMMAND, (arg?: { callId?: unknown; approved?: unknown }) => {
    if (typeof arg?.callId !== 'string' || typeof arg.approved !== 'boolean') return false;
    const answered = approvals.answer(arg.callId, arg.approved);
    if (!answered) void vscode.window.showInformationMessage('That approval was already answered, or its chat answer has ended.');
    return answered;
  }));
}

