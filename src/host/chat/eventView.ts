// How a turn's AgentEvents show in the chat, as plain render operations (pure, tested without an editor).
// Also tracks what the response's metadata and closing buttons need.
import type { AgentEvent, ErrorInfo, TurnStopReason } from '../../common/agentEvents';
import type { ToolCategory } from '../../common/approval';
import type { SendResult, SessionEventParams } from '../../common/protocol/runtime';
import { cacheEffectText, noPriceText, usdText } from '../../common/pricing';
import type { Entry, Usage } from '../../common/transcript';
import { reportHeadlines } from '../../common/forkNotification';
import type { ReportHeadline } from '../../common/forkNotification';

export type RenderOp =
  | { kind: 'markdown'; text: string }
  | { kind: 'progress'; text: string }
  /** A root-relative path: changed files as inline anchors, read ones as references. */
  | { kind: 'anchor'; path: string }
  | { kind: 'reference'; path: string }
  /** Reports of these forks rode into this turn for the model: the user is told in a sentence. */
  | { kind: 'reports'; forkIds: string[]; headlines: ReportHeadline[] };

export class TurnView {
  sessionId?: string;
  promptEntryId?: string;
  lastEntryId?: string;
  usage?: Usage;
  /** Input tokens of the latest request and the model's window, for the context line. */
  context?: { tokens: number; window: number };
  stopReason?: TurnStopReason;
  error?: ErrorInfo;
  private readonly categories = new Map<string, ToolCategory>();
  private readonly shownFiles = new Set<string>();
  private thinking = '';

  apply(params: SessionEventParams): RenderOp[] {
    this.sessionId = params.sessionId;
    return this.view(params.event);
  }

  private view(event: AgentEvent): RenderOp[] {
    if (event.type === 'thinking_delta') {
      this.thinking += event.text;
      return [];
    }
    return [...this.flushThinking(), ...this.viewOther(event)];
  }

  /**
   * Thinking text (adaptive models write their progress between tool calls as thinking, returned with
   * display "summarized") shows as one progress line once the block is over, so the chat is never silent
   * between tool calls; the line is the thinking's first sentence-sized piece.
   */
  private flushThinking(): RenderOp[] {
    const text = this.thinking.trim().replace(/\s+/g, ' ');
    this.thinking = '';
    if (text === '') return [];
    return [{ kind: 'progress', text: text.length > 160 ? `${text.slice(0, 159)}…` : text }];
  }

  private viewOther(event: AgentEvent): RenderOp[] {
    switch (event.type) {
      case 'turn_start':
        this.promptEntryId = event.promptEntryId;
        this.lastEntryId = event.promptEntryId;
        return [];
      case 'entry': {
        this.lastEntryId = event.entry.id;
        if (event.entry.kind !== 'notification') return [];
        const headlines = reportHeadlines(messageText(event.entry));
        return headlines.length > 0 ? [{ kind: 'reports', forkIds: headlines.map(headline => headline.forkId), headlines }] : [];
      }
      case 'text_delta':
        return event.text === '' ? [] : [{ kind: 'markdown', text: event.text }];
      case 'tool_call':
        this.categories.set(event.callId, event.category);
        return [{ kind: 'progress', text: event.description }];
      case 'approval_wait':
        return [{ kind: 'progress', text: 'Waiting for your approval…' }];
      case 'tool_result':
        return this.files(event.callId, event.files);
      case 'retry':
        return [{ kind: 'progress', text: retryText(event.error, event.delayMs) }];
      case 'usage':
        this.usage = event.usage;
        if (event.contextWindow) this.context = { tokens: event.contextTokens, window: event.contextWindow };
        return [];
      case 'compaction':
        return [{ kind: 'progress', text: `Compacted the conversation (it had ${formatTokens(event.tokensBefore)} tokens); continuing…` }];
      case 'compaction_failed':
        return [{ kind: 'markdown', text: `\n\n_${event.error.message}_\n\n` }];
      case 'turn_end':
        this.stopReason = event.stopReason;
        this.error = event.error;
        if (event.lastEntryId) this.lastEntryId = event.lastEntryId;
        return [];
      default:
        return [];
    }
  }

  private files(callId: string, files: readonly string[]): RenderOp[] {
    const changed = this.categories.get(callId) === 'edit';
    const fresh = files.filter(file => {
      const key = `${changed ? 'anchor' : 'reference'}:${file}`;
      if (this.shownFiles.has(key)) return false;
      this.shownFiles.add(key);
      return true;
    });
    if (!changed) return fresh.map(path => ({ kind: 'reference', path }));
    if (fresh.length === 0) return [];
    // Anchors are inline: a paragraph of their own keeps them off the model's sentences.
    const anchors = fresh.flatMap((path, i): RenderOp[] => (i === 0 ? [{ kind: 'anchor', path }] : [{ kind: 'markdown', text: ' ' }, { kind: 'anchor', path }]));
    return [{ kind: 'markdown', text: '\n\n' }, ...anchors, { kind: 'markdown', text: '\n\n' }];
  }
}

function messageText(entry: Entry): string {
  return entry.message.content.map(block => (block.type === 'text' ? block.text : '')).join('\n');
}

/** A short line when the context is more than half full, e.g. "Context: 62% of 200k tokens". */
export function contextNote(context: { tokens: number; window: number } | undefined): string | undefined {
  if (!context || context.window <= 0 || context.tokens / context.window <= 0.5) return undefined;
  const percent = Math.round((context.tokens / context.window) * 100);
  return `\n\n_Context: ${percent}% of ${formatTokens(context.window)} tokens used. It compacts automatically near the limit; \`/compact\` does it now._`;
}

/**
 * The chat's cost line, from the runtime's figures for the recorded usage: this turn, and the
 * chat with its forks. Without a price for the model it says so rather than guess.
 */
export function costNote(cost: SendResult['cost'], model: string): string {
  if (!cost) return `\n\n_Cost: ${noPriceText(model, 'editor')}._`;
  return `\n\n_Cost on ${model}: ${usdText(cost.turn.usd)} this turn · ${usdText(cost.chat.usd)} this chat with its forks · ${cacheEffectText(cost.turn, { span: 'this turn', later: 'turns' })}._`;
}

function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

export function retryText(error: ErrorInfo, delayMs: number): string {
  const seconds = Math.max(1, Math.ceil(delayMs / 1000));
  if (error.kind === 'rate_limit') return `Rate limited, retrying in ${seconds}s…`;
  if (error.kind === 'overloaded') return `The API is overloaded, retrying in ${seconds}s…`;
  return `The model request failed (${error.kind}), retrying in ${seconds}s…`;
}

/** A closing line when the turn stopped short for a reason the user can act on. */
export function stopNote(stopReason: string | undefined): string | undefined {
  if (stopReason === 'max_tokens') return '\n\n_The answer stopped at the `fork.maxTokens` limit; raise the setting or ask @fork to continue._';
  if (stopReason === 'max_turns') return '\n\n_The agent stopped after its maximum number of model turns; ask @fork to continue._';
  return undefined;
}
