// Compaction: the model summarises the history so far; the summary becomes a `summary` entry
// and the request view restarts from it. Nothing is deleted: the transcript stays append-only.
import type { ErrorInfo } from '../../common/agentEvents';
import type { Entry, Usage } from '../../common/transcript';
import { inputTokens, isRealUserTurn } from '../../common/transcript';
import type { ModelClient } from '../model/modelClient';
import type { Session } from '../session/session';
import { buildRequestBody } from './request';
import { streamWithRetries } from './retry';
import type { RetryOptions } from './retry';
import { modelFacts } from '../../common/models';

export const DEFAULT_AUTO_COMPACT_AT = 0.8;

export interface CompactionSettings {
  /** fork.contextWindow when the user set one; absent: the model's own (contextWindowFor). */
  contextWindow?: number;
  /** Share of the window at which a request first compacts (0 < x ≤ 1). */
  autoCompactAt: number;
}

/** The window a session's requests are measured against: the user's setting, else the model table's figure. */
export function contextWindowFor(settings: CompactionSettings | undefined, model: string): number {
  return settings?.contextWindow ?? modelFacts(model).contextWindow;
}

export type CompactOutcome =
  | { ok: true; entry: Entry; tokensBefore: number; usage: Usage }
  | { ok: false; error: ErrorInfo };

export function compactInstruction(focus?: string): string {
  return [
    'The conversation so far is about to be replaced by a summary, because it is getting too long for the context window.',
    'Write that summary now, for yourself: it is all you will see of the earlier conversation. Do not call tools.',
    'Cover, in Markdown sections: 1. What the user asked for (all requests, in order, with their exact constraints).',
    '2. Decisions made and why. 3. Files read, created or changed (paths, what changed). 4. Commands run and their',
    'outcomes. 5. Open work: what is unfinished, next steps, open questions. Be specific; keep names, paths and numbers.',
    ...(focus ? [`Focus especially on: ${focus}`] : []),
  ].join('\n');
}

/**
 * Summarises the session's request view up to `upTo` (default: everything) and commits the summary.
 * The summary request reuses the session's system prompt and tools, so it reads the cached prefix.
 */
export async function compactSession(
  session: Session, model: ModelClient, signal: AbortSignal, options: { focus?: string; upTo?: Entry; retry?: RetryOptions } = {},
): Promise<CompactOutcome> {
  const view = session.entries();
  const end = options.upTo ? view.indexOf(options.upTo) + 1 : view.length;
  const covered = view.slice(0, end);
  if (!covered.some(entry => entry.kind !== 'startup')) {
    return { ok: false, error: { kind: 'bad_request', message: 'Nothing to compact yet.' } };
  }
  const instruction: Entry = {
    id: 'compact-instruction', kind: 'prompt', time: new Date(0).toISOString(),
    message: { role: 'user', content: [{ type: 'text', text: compactInstruction(options.focus) }] },
  };
  const response = await streamWithRetries(
    model, () => buildRequestBody(session.header, [...covered, instruction]), signal, { onText: () => undefined, onThinking: () => undefined }, options.retry,
  );
  // Attempts that started and then failed were billed: they count.
  if (response.lost) session.recordSpend(response.lost, 'compaction attempts');
  if ('error' in response) {
    return { ok: false, error: { ...response.error, message: `Compaction failed; the session is unchanged and still usable. ${response.error.message}` } };
  }
  const text = response.message.content.map(block => (block.type === 'text' ? block.text : '')).join('').trim();
  if (text === '') return { ok: false, error: { kind: 'bad_request', message: 'The model returned an empty summary.' } };
  const last = covered[covered.length - 1];
  try {
    const entry = session.commit('summary', {
      role: 'user',
      content: [{ type: 'text', text: `<system-reminder>\nThis conversation was compacted; the summary of its earlier part follows.\n\n${text}\n</system-reminder>` }],
    }, { replacesUpTo: last.id, usage: response.usage });
    return { ok: true, entry, tokensBefore: inputTokens(response.usage), usage: response.usage };
  } catch (error) {
    // The summary could not be written (disk full, file gone): nothing changed, say so.
    return { ok: false, error: { kind: 'internal', message: `Compaction failed; the session is unchanged and still usable. The summary could not be saved: ${String(error)}` } };
  }
}

/**
 * Input tokens the next request will carry: the last request's as the provider reported them, plus an
 * estimate for what came after it. The reported figure is the model's own tokenizer's count (tokenizers
 * differ: Haiku 5.5 counts ~30% more than Haiku 4.5 for the same text, per its overview page); only the
 * few entries after it are guessed at 4 characters a token, and the next response's usage replaces the guess.
 */
export function estimateContextTokens(session: Session): number {
  const view = session.entries();
  let lastUsageAt = -1;
  for (let i = view.length - 1; i >= 0; i--) {
    if (view[i].kind === 'response' && view[i].usage) {
      lastUsageAt = i;
      break;
    }
  }
  const charsAfter = view.slice(lastUsageAt + 1).reduce((sum, entry) => sum + JSON.stringify(entry.message).length, 0);
  if (lastUsageAt < 0) {
    const fixed = session.header.systemPrompt.length + JSON.stringify(session.header.tools).length;
    return Math.ceil((fixed + charsAfter) / 4);
  }
  const usage = view[lastUsageAt].usage!;
  return inputTokens(usage) + usage.output_tokens + Math.ceil(charsAfter / 4);
}

/**
 * Where an automatic compaction cuts: before the current turn's prompt, so that turn stays whole; never
 * between a call and its results (a fork's closing answers the last inherited calls: the cut goes before
 * the assistant message that made them, else the summary request would hold unanswered tool_use blocks).
 */
export function autoCompactionPoint(session: Session): Entry | undefined {
  const view = session.entries();
  let cut = view.length - 1;
  for (let i = view.length - 1; i > 0; i--) {
    const entry = view[i];
    if (entry.kind === 'prompt' && isRealUserTurn(entry.message)) {
      cut = i - 1;
      break;
    }
  }
  while (cut > 0 && hasToolUse(view[cut])) cut--;
  return view[cut];
}

function hasToolUse(entry: Entry): boolean {
  return entry.message.role === 'assistant' && entry.message.content.some(block => block.type === 'tool_use');
}
