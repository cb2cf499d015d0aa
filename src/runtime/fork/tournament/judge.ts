// The judge: one model request that ranks the attempts left after the verify stage. It is built like an
// attempt's first request — the same inherited entries, placeholder results and directive, with the same
// breakpoints (agent/request.ts) — so it reads the prefix the parent and the attempts already cached, and
// only its own tail (the attempts' diffs, verify output and reports, and the rubric) is new input.
import type { Entry, Usage } from '../../../common/transcript';
import type { JudgeAnswer } from '../../../common/tournament';
import { parseJudgeAnswer } from '../../../common/tournament';
import { buildRequestBody } from '../../agent/request';
import type { MessagesRequestBody } from '../../model/wire';
import type { ModelClient } from '../../model/modelClient';
import type { Session } from '../../session/session';

export const JUDGE_TAG = 'fork-judge';
/** Per attempt: enough of a diff to judge scope and risk, bounded so eight attempts fit one request. */
const DIFF_CHARS = 12_000;
const VERIFY_CHARS = 1_500;

export interface JudgeCandidate {
  attempt: number;
  model?: string;
  report?: string;
  patch: string;
  verify?: { command: string; exitCode: number | null; outputTail: string };
}

export function renderJudgePrompt(candidates: readonly JudgeCandidate[]): string {
  const lines = [
    `<${JUDGE_TAG}>`,
    'You are the judge of a fork tournament, not a worker: do not call tools. Several attempts carried out the directive above,',
    'each in its own worktree. Compare them against this rubric, in order:',
    '1. Does it do what the directive asked, completely and correctly?',
    '2. Scope: does it stay within the directive, without unrelated changes?',
    '3. Size and risk: prefer the smaller, safer change when the others are equal.',
    'Answer in exactly this form, one line each:',
    'WINNER: <attempt number, or none when no attempt is better than the others>',
    'REASON: <one sentence>',
    'ATTEMPT <n>: <one sentence per attempt>',
  ];
  for (const c of candidates) {
    lines.push('', `<attempt number="${c.attempt}"${c.model ? ` model="${c.model}"` : ''}>`);
    lines.push('Report:', c.report?.trim() || '(none)');
    if (c.verify) lines.push(`Verify: \`${c.verify.command}\` exited ${c.verify.exitCode ?? 'without an exit code'}`, clip(c.verify.outputTail, VERIFY_CHARS, 'end'));
    lines.push('Diff:', c.patch.trim() === '' ? '(no changes)' : clip(c.patch, DIFF_CHARS, 'start'), '</attempt>');
  }
  lines.push(`</${JUDGE_TAG}>`);
  return lines.join('\n');
}

function clip(text: string, max: number, keep: 'start' | 'end'): string {
  if (text.length <= max) return text;
  return keep === 'start' ? `${text.slice(0, max)}\n… [${text.length - max} characters cut]` : `[${text.length - max} characters cut] …\n${text.slice(-max)}`;
}

/**
 * The judge's request over an attempt's session: its inherited entries, then its closing message with the
 * attempt's note replaced by the judge's prompt. `model`: the parent's (whose cache holds the prefix).
 */
export function judgeRequest(attempt: Session, model: string, prompt: string): MessagesRequestBody {
  const bootstrap = attempt.bootstrap;
  if (!bootstrap) throw new Error(`${attempt.id} is not a fork`);
  const closingAt = bootstrap.inheritedCount;
  const entries = attempt.entries().slice(0, closingAt);
  // The attempt's closing is [placeholder results…, directive, attempt note]: keep all but the note.
  const shared = bootstrap.closing.message.content.slice(0, -1);
  const closing: Entry = { ...bootstrap.closing, message: { role: 'user', content: [...shared, { type: 'text', text: prompt }] } };
  // Same settings as the attempts (thinking and max_tokens included): only the model may differ, back to the parent's.
  const header = { ...attempt.header, settings: { ...attempt.header.settings, model } };
  const body = buildRequestBody(header, [...entries, closing], { parentRequestEnd: bootstrap.parentRequestEnd, closingAt });
  return body;
}

export interface JudgeOutcome { answer: JudgeAnswer; text: string; usage?: Usage; error?: string }

export async function askJudge(client: ModelClient, body: MessagesRequestBody, candidates: readonly number[], signal: AbortSignal): Promise<JudgeOutcome> {
  try {
    const response = await client.stream(body, signal, { onText: () => undefined, onThinking: () => undefined });
    const text = response.message.content.filter(b => b.type === 'text').map(b => (b as { text: string }).text).join('\n');
    return { answer: parseJudgeAnswer(text, candidates), text, usage: response.usage };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { answer: { winner: null, reason: `The judge request failed: ${message}`, perAttempt: new Map() }, text: '', error: message };
  }
}
