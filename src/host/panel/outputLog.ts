// A fork's live output as the panel shows it: streamed text, tool calls with their outcome,
// retries and errors. Each AgentEvent becomes small ops the webview applies; the log itself is bounded
// so a fork that talks for hours costs the host (and a fresh snapshot) a few hundred KB at most. Pure.
import type { AgentEvent } from '../../common/agentEvents';
import type { OutputItem, OutputOp } from '../../common/protocol/webview';
import { commandLabel } from '../../common/forkDisplay';
import { retryText } from '../chat/eventView';

export interface OutputLimits { maxItems: number; maxChars: number; maxTextItemChars: number }
export const DEFAULT_LIMITS: OutputLimits = { maxItems: 300, maxChars: 60_000, maxTextItemChars: 8_000 };

export class OutputLog {
  private items: OutputItem[] = [];
  private nextSeq: number;
  /** The text item the current response streams into. */
  private openText?: Extract<OutputItem, { kind: 'text' }>;
  /** The item a setup command's output streams into (beside the model's text: both can run at once). */
  private openSetup?: Extract<OutputItem, { kind: 'text' }>;
  private chars = 0;

  /** `firstSeq`: a log that replaces another continues its numbering, so the webview can tell old items from new. */
  constructor(private readonly limits: OutputLimits = DEFAULT_LIMITS, firstSeq = 1) {
    this.nextSeq = firstSeq;
  }

  /** The seq the next item gets. */
  get upcomingSeq(): number {
    return this.nextSeq;
  }

  snapshot(): OutputItem[] {
    return this.items.map(item => ({ ...item }));
  }

  apply(event: AgentEvent): OutputOp[] {
    switch (event.type) {
      case 'request_start':
        // Each model request starts a new paragraph of output.
        this.openText = undefined;
        return [];
      case 'text_delta':
        return event.text === '' ? [] : this.appendText(event.text);
      case 'tool_call':
        // A history (fork/history) can name a call twice: from its response entry and from the live run.
        if (this.items.some(item => item.kind === 'tool' && item.callId === event.callId)) return [];
        this.openText = undefined;
        return this.push({ seq: 0, kind: 'tool', callId: event.callId, name: event.name, description: event.description, status: 'running' });
      case 'tool_result':
        return this.finishTool(event.callId, event.isError, event.summary);
      case 'retry':
        return this.push({ seq: 0, kind: 'note', tone: 'warning', text: retryText(event.error, event.delayMs) });
      case 'compaction':
        return this.note('info', `Compacted the conversation (${event.tokensBefore} tokens before).`);
      case 'compaction_failed':
        return this.note('warning', event.error.message);
      case 'setup_start':
        this.openSetup = undefined;
        return this.push({ seq: 0, kind: 'note', tone: 'info', text: `Setup: ${commandLabel(event.command)}` });
      case 'setup_output':
        return event.text === '' ? [] : this.appendSetup(event.text);
      case 'setup_end': {
        this.openSetup = undefined;
        const ok = event.exitCode === 0 && !event.timedOut;
        const how = event.timedOut ? 'timed out' : event.exitCode === null ? 'was killed' : `exited with code ${event.exitCode}`;
        return this.push({ seq: 0, kind: 'note', tone: ok ? 'info' : 'error', text: `Setup ${commandLabel(event.command)} ${how} (${(event.durationMs / 1000).toFixed(1)} s)` });
      }
      default:
        // A fork's end is its summary's state (fork/state), not an event: see note().
        return [];
    }
  }

  /** A line of our own, e.g. why the fork ended. */
  note(tone: 'info' | 'warning' | 'error', text: string): OutputOp[] {
    this.openText = undefined;
    return this.push({ seq: 0, kind: 'note', tone, text });
  }

  private appendText(text: string): OutputOp[] {
    const open = this.openText;
    if (!open || open.text.length >= this.limits.maxTextItemChars) {
      const ops = this.push({ seq: 0, kind: 'text', text: '' });
      this.openText = this.items[this.items.length - 1] as Extract<OutputItem, { kind: 'text' }>;
      return [...ops.filter(op => op.op === 'trim'), ...this.appendText(text)];
    }
    open.text += text;
    this.chars += text.length;
    return [{ op: 'append', seq: open.seq, text }, ...this.trim()];
  }

  private appendSetup(text: string): OutputOp[] {
    const open = this.openSetup;
    if (!open || open.text.length >= this.limits.maxTextItemChars) {
      const ops = this.push({ seq: 0, kind: 'text', text: '', console: true });
      this.openSetup = this.items[this.items.length - 1] as Extract<OutputItem, { kind: 'text' }>;
      return [...ops, ...this.appendSetup(text)];
    }
    open.text += text;
    this.chars += text.length;
    return [{ op: 'append', seq: open.seq, text }, ...this.trim()];
  }

  private finishTool(callId: string, isError: boolean, summary: string): OutputOp[] {
    const item = this.items.find((i): i is Extract<OutputItem, { kind: 'tool' }> => i.kind === 'tool' && i.callId === callId);
    if (!item) return [];
    item.status = isError ? 'error' : 'ok';
    this.chars += summary.length - (item.summary?.length ?? 0);
    item.summary = summary;
    return [{ op: 'put', item: { ...item } }];
  }

  private push(item: OutputItem): OutputOp[] {
    const added = { ...item, seq: this.nextSeq++ } as OutputItem;
    this.items.push(added);
    this.chars += sizeOf(added);
    // A new empty text item is announced by its first append, not by a put.
    // (A console item is announced by a put: the append alone would not say it is one.)
    const ops: OutputOp[] = added.kind === 'text' && !added.console ? [] : [{ op: 'put', item: { ...added } }];
    return [...ops, ...this.trim()];
  }

  private trim(): OutputOp[] {
    let dropped = 0;
    while (this.items.length > 1 && (this.items.length > this.limits.maxItems || this.chars > this.limits.maxChars)) {
      const gone = this.items.shift()!;
      this.chars -= sizeOf(gone);
      if (gone === this.openText) this.openText = undefined;
      if (gone === this.openSetup) this.openSetup = undefined;
      dropped++;
    }
    return dropped > 0 ? [{ op: 'trim', beforeSeq: this.items[0].seq }] : [];
  }
}

function sizeOf(item: OutputItem): number {
  return item.kind === 'tool' ? item.description.length + (item.summary?.length ?? 0) : item.text.length;
}

/** Merges a batch of ops: consecutive appends to one item become one, later puts of an item win. */
export function compactOps(ops: readonly OutputOp[]): OutputOp[] {
  const out: OutputOp[] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (op.op === 'append' && last?.op === 'append' && last.seq === op.seq) {
      out[out.length - 1] = { op: 'append', seq: op.seq, text: last.text + op.text };
    } else if (op.op === 'put') {
      const earlier = out.findIndex(o => o.op === 'put' && o.item.seq === op.item.seq);
      if (earlier >= 0) out.splice(earlier, 1);
      out.push(op);
    } else {
      out.push(op);
    }
  }
  return out;
}
