// The agent loop as free functions over an injected model client (pi-mono style): request → stream →
// commit the assistant message → run its tools → commit their results → repeat until the model stops.
// Everything it does is reported as AgentEvents; callers (chat, CLI, forks) only consume events.
import { heavyTurn } from '../heavyTurn';
import type { AgentEvent, ErrorInfo, TurnStopReason } from '../../common/agentEvents';
import type { ApprovalMode, ToolCategory } from '../../common/approval';
import { needsApproval } from '../../common/approval';
import type { ToolResultBlock, ToolUseBlock, Usage } from '../../common/transcript';
import { addUsage, inputTokens, zeroUsage } from '../../common/transcript';
import type { ModelClient } from '../model/modelClient';
import type { RequestExplanation, RequestRecord } from '../session/records';
import type { ForkFirstRequest, Session } from '../session/session';
import type { Tool, ToolContext } from '../tools/types';
import { runTool } from '../tools/registry';
import { GIT_WRITE_NOTE } from '../tools/gitGuard';
import { autoCompactionPoint, compactSession, contextWindowFor, estimateContextTokens } from './compact';
import type { CompactionSettings } from './compact';
import { buildRequest, buildRequestBody } from './request';
import type { BuiltRequest } from './request';
import { checkKeptPrefix } from './prefixCheck';
import type { PrefixHome } from './requestPrefix';
import type { MessagesRequestBody } from '../model/wire';
import { fingerprint } from '../cache/fingerprint';
import { streamWithRetries } from './retry';
import { bindingsFor } from './thinkingBinding';

/** `category`: what this call needs approving as (a write under .git counts as a command). */
export interface ApprovalRequest { callId: string; tool: Tool; input: unknown; description: string; category: ToolCategory }

export interface LoopDeps {
  session: Session;
  model: ModelClient;
  tools: ReadonlyMap<string, Tool>;
  toolContext: Omit<ToolContext, 'signal'>;
  approvalMode: ApprovalMode;
  approve(request: ApprovalRequest): Promise<{ approved: boolean; reason?: string; unanswered?: boolean }>;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** Model requests allowed before the loop stops (forks: 200). */
  maxRequests?: number;
  maxRetries?: number;
  /** Runs before each model request, e.g. to commit fork notifications into the history. */
  beforeRequest?(): void;
  /** Automatic compaction when a request would pass the threshold; absent: never compacts. */
  compaction?: CompactionSettings;
  /**
   * Asked before each model request: a reason means no further request (a budget was reached), and the
   * loop stops with stopReason "budget". So nothing is spent past a budget by more than one request.
   */
  mayRequest?(): string | undefined;
  /** Awaited just before each model request is sent (forks: the sibling stagger). */
  beforeSend?(): Promise<void>;
  /** The request's response has started: its cache writes are readable from now on. */
  onResponseStart?(): void;
  /** Tools whose commands run inside the OS sandbox: under auto-edit they run unasked, since what would leave it fails. */
  sandboxedTools?: ReadonlySet<string>;
  /** Forks: the cache verdict of the first request, stored with its record (cache/sessionCache.ts). */
  explainFirstRequest?(record: RequestRecord): RequestExplanation | undefined;
}

export interface LoopOutcome {
  stopReason: TurnStopReason;
  error?: ErrorInfo;
  /** Why the loop stopped at a budget (stopReason "budget"). */
  budgetReason?: string;
  /** Text of the final assistant message. */
  text: string;
  usage: Usage;
}

export const CANCELLED_RESULT = 'The user cancelled this tool call before it finished.';

/**
 * Runs model requests until the model stops asking for tools. The session must end with a user entry.
 * Never rejects: a failure inside (a transcript that cannot be written on a full disk, say) ends this turn
 * with an error outcome, and only this turn.
 */
export async function runLoop(deps: LoopDeps): Promise<LoopOutcome> {
  try {
    const outcome = await loopUntilDone(deps);
    // The turn's last records are on disk before it is reported done.
    await deps.session.durable();
    return outcome;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { stopReason: 'error', error: { kind: 'internal', message }, text: '', usage: zeroUsage() };
  }
}

async function loopUntilDone(deps: LoopDeps): Promise<LoopOutcome> {
  let total = zeroUsage();
  const maxRequests = deps.maxRequests ?? 200;
  let text = '';
  for (let index = 0; index < maxRequests; index++) {
    if (deps.signal.aborted) return { stopReason: 'cancelled', text, usage: total };
    const stop = deps.mayRequest?.();
    if (stop) return { stopReason: 'budget', budgetReason: stop, text, usage: total };
    deps.beforeRequest?.();
    await compactIfNeeded(deps);
    // Records flush on the thread pool (session/jsonl.ts); a step starts only once the previous one is on
    // disk, so a request is never billed without the record of what led to it.
    await deps.session.durable();
    await deps.beforeSend?.();
    // Building and encoding the body is proportional to the history: it starts on a turn of its own
    // (heavyTurn.ts), after the socket reads and answers already waiting (siblings' fork/start among them).
    await heavyTurn();
    if (deps.signal.aborted) return { stopReason: 'cancelled', text, usage: total };
    deps.emit({ type: 'request_start', index });
    const { response, built } = await requestWithRetries(deps);
    if (response.lost) {
      // Attempts that started streaming and then failed, were cut or cancelled were billed all the same.
      total = addUsage(total, response.lost);
      deps.session.recordSpend(response.lost, 'error' in response ? `request ended: ${response.error.kind}` : 'retried attempts');
      deps.emit({ type: 'usage', usage: response.lost, contextTokens: inputTokens(response.lost), billedOnly: true });
    }
    if ('error' in response) {
      const cancelled = response.error.kind === 'cancelled';
      return { stopReason: cancelled ? 'cancelled' : 'error', error: cancelled ? undefined : response.error, text, usage: total };
    }
    total = addUsage(total, response.usage);
    const contextTokens = inputTokens(response.usage);
    deps.emit({ type: 'usage', usage: response.usage, contextTokens, contextWindow: contextWindowFor(deps.compaction, deps.session.header.settings.model) });
    const toolUses = response.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    text = response.message.content.map(b => (b.type === 'text' ? b.text : '')).join('');
    if (response.message.content.length > 0) {
      const entry = deps.session.commit('response', response.message, {
        usage: response.usage, stopReason: response.stopReason,
        // What each thinking block is bound to, so later requests (this chat's, its forks') know whether it still holds.
        ...(built ? { thinkingBindings: bindingsFor(built.body, response.message.content, built.chainAfter) } : {}),
        ...(response.inputTransformations ? { inputTransformations: response.inputTransformations } : {}),
      });
      deps.emit({ type: 'entry', entry });
    }
    if (toolUses.length === 0) {
      return { stopReason: response.stopReason === 'max_tokens' ? 'max_tokens' : 'end_turn', text, usage: total };
    }
    // The response that asked for the tools is on disk before any of them runs.
    await deps.session.durable();
    const results = await runToolCalls(deps, toolUses);
    const entry = deps.session.commit('tool_results', { role: 'user', content: results });
    deps.emit({ type: 'entry', entry });
  }
  return { stopReason: 'max_turns', text, usage: total };
}

async function compactIfNeeded(deps: LoopDeps): Promise<void> {
  const settings = deps.compaction;
  if (!settings || estimateContextTokens(deps.session) < contextWindowFor(settings, deps.session.header.settings.model) * settings.autoCompactAt) return;
  const outcome = await compactSession(deps.session, deps.model, deps.signal, {
    upTo: autoCompactionPoint(deps.session),
    retry: { maxRetries: deps.maxRetries, onRetry: (attempt, delayMs, error) => deps.emit({ type: 'retry', attempt, delayMs, error }) },
  });
  if (outcome.ok) {
    deps.emit({ type: 'entry', entry: outcome.entry });
    deps.emit({ type: 'compaction', auto: true, summaryEntryId: outcome.entry.id, tokensBefore: outcome.tokensBefore });
  } else if (!deps.signal.aborted) {
    deps.emit({ type: 'compaction_failed', auto: true, error: outcome.error });
  }
}

async function requestWithRetries(deps: LoopDeps) {
  const first = await requestOnce(deps);
  if (!('error' in first.response) || deps.session.dropsMismatchedThinking || !boundElsewhere(first.response.error, first.built?.body)) return first;
  // The API found thinking bound to a different conversation that the engine's bindings vouched for: the
  // history was changed from outside. Not the same body again: once more with drop_block (and its beta
  // header), so the API leaves out what fails and says so in input_transformations; the choice stays for the
  // session's later requests. https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/
  // fix-bound-to-a-different-conversation, read 2026-12-01.
  deps.session.dropsMismatchedThinking = true;
  deps.emit({ type: 'retry', attempt: 1, delayMs: 0, error: first.response.error });
  const second = await requestOnce(deps);
  const lost = first.response.lost && second.response.lost ? addUsage(first.response.lost, second.response.lost) : first.response.lost ?? second.response.lost;
  return { ...second, response: { ...second.response, ...(lost ? { lost } : {}) } };
}

/** The documented 400 for a thinking block whose prefix changed, on a request that could still opt in to drop_block. */
function boundElsewhere(error: ErrorInfo, body: MessagesRequestBody | undefined): boolean {
  return error.kind === 'bad_request' && /bound to a different conversation/.test(error.message)
    && body?.thinking?.type === 'adaptive' && !body.thinking.block_binding;
}

/**
 * Where a request keeps its leading messages (agent/requestPrefix.ts): a chat's requests in its own slot, for
 * its forks' first requests; a fork's first in its parent's, shared with its siblings; a fork's later ones
 * nowhere (they repeat no one's). A fork of a fork thus fills its parent's slot, never its grandparent's.
 */
export function requestHome(session: Pick<Session, 'bootstrap' | 'prefixHome' | 'parentPrefixHome'>, fork: ForkFirstRequest | undefined): PrefixHome | undefined {
  if (fork) return session.parentPrefixHome ?? session.prefixHome;
  return session.bootstrap ? undefined : session.prefixHome;
}

async function requestOnce(deps: LoopDeps) {
  let sent: { built: BuiltRequest; lastEntryId?: string } | undefined;
  const session = deps.session;
  const response = await streamWithRetries(
    deps.model,
    () => {
      const entries = session.entries();
      const fork = session.inheritedBreakpointsEnd();
      const home = requestHome(session, fork);
      const options = { dropMismatchedThinking: session.dropsMismatchedThinking };
      const built = buildRequest(session.header, entries, fork, options, home);
      checkKeptPrefix(built, () => buildRequestBody(session.header, entries, fork, options));
      sent = { built, lastEntryId: entries[entries.length - 1]?.id };
      return built.body;
    },
    deps.signal,
    {
      onText: text => deps.emit({ type: 'text_delta', text }),
      onThinking: text => deps.emit({ type: 'thinking_delta', text }),
      onStart: () => deps.onResponseStart?.(),
    },
    {
      maxRetries: deps.maxRetries, onRetry: (attempt, delayMs, error) => deps.emit({ type: 'retry', attempt, delayMs, error }),
      facts: () => sent && { encoded: sent.built.encoded, ttl: sent.built.ttl },
    },
  );
  if (!('error' in response) && sent) {
    // Recording what was sent hashes the blocks the request added: work that can wait a turn, so calls
    // and other forks' events queued behind this response are served first (one run's steps never add up
    // to one long block of the runtime's only thread), nor do several runs' steps (heavyTurn.ts).
    await heavyTurn();
    const { built } = sent;
    const record = fingerprint(built.body, response.serverTime ?? Date.now(), response.usage, sent.lastEntryId, response.inputTransformations, { prefix: built.prefix, ttl: built.ttl });
    const explained = deps.explainFirstRequest?.(record);
    deps.session.recordRequest(explained ? { ...record, explained } : record);
  }
  return { response, built: sent?.built };
}

/** Every tool_use gets exactly one tool_result, whatever happens (denied, cancelled, failed). */
async function runToolCalls(deps: LoopDeps, calls: ToolUseBlock[]): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    results.push(await runToolCall(deps, call));
  }
  return results;
}

async function runToolCall(deps: LoopDeps, call: ToolUseBlock): Promise<ToolResultBlock> {
  const result = (content: string, isError: boolean, files: string[] = [], blocks?: ToolResultBlock['content']): ToolResultBlock => {
    deps.emit({ type: 'tool_result', callId: call.id, name: call.name, isError, summary: toolResultSummary(content), files });
    return { type: 'tool_result', tool_use_id: call.id, content: blocks ?? (content === '' ? '(no output)' : content), ...(isError ? { is_error: true } : {}) };
  };
  const tool = deps.tools.get(call.name);
  if (!tool) {
    deps.emit({ type: 'tool_call', callId: call.id, name: call.name, category: 'read', description: call.name });
    return result(`Unknown tool "${call.name}". Available tools: ${[...deps.tools.keys()].join(', ')}.`, true);
  }
  const category = tool.approvalCategory ? await tool.approvalCategory(call.input, deps.toolContext.root) : tool.category;
  const description = category !== tool.category ? `${tool.describe(call.input)} (${GIT_WRITE_NOTE})` : tool.describe(call.input);
  deps.emit({ type: 'tool_call', callId: call.id, name: call.name, category, description });
  if (deps.signal.aborted) return result(CANCELLED_RESULT, true);
  // Writes under .git are allowed only when this call was cleared as a command would be.
  const gitWritesAllowed = !needsApproval(deps.approvalMode, 'exec') || category === 'exec';
  const sandboxed = deps.approvalMode === 'auto-edit' && category === 'exec' && deps.sandboxedTools?.has(tool.definition.name) === true;
  if (needsApproval(deps.approvalMode, category) && !sandboxed) {
    deps.emit({ type: 'approval_wait', callId: call.id, description });
    const answer = await deps
      .approve({ callId: call.id, tool, input: call.input, description, category })
      .catch(error => ({ approved: false, unanswered: true, reason: `approval could not be asked: ${error instanceof Error ? error.message : String(error)}` }));
    if (deps.signal.aborted) return result(CANCELLED_RESULT, true);
    if (!answer.approved) {
      const why = answer.reason ? ` (${answer.reason})` : '';
      // "The user denied" only when someone was asked and said no; otherwise nobody answered.
      const what = answer.unanswered ? `This ${tool.definition.name} call was not run${why}.` : `The user denied this ${tool.definition.name} call${why}.`;
      return result(`${what} Do not retry it; ask the user or take another approach.`, true);
    }
  }
  const output = await runTool(tool, call.input, { ...deps.toolContext, callId: call.id, signal: deps.signal, gitWritesAllowed });
  return result(output.content, output.isError === true, output.files ?? [], output.blocks);
}

/** The one line a tool result shows as in the chat and the Forks panel. */
export function toolResultSummary(text: string): string {
  const line = text.split('\n', 1)[0];
  return line.length > 200 ? line.slice(0, 200) + '…' : line;
}

