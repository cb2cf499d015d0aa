// session/send: one user prompt, run to the end of the agent's turn, events streamed as session/event.
import { modelFacts, retiredModelText, retiredToday } from '../../common/models';
import { ResponseError, ErrorCodes } from 'vscode-jsonrpc/node';
import type { AgentEvent } from '../../common/agentEvents';
import { RuntimeErrorCode, permissionRequest, sessionEvent, sessionSend } from '../../common/protocol/runtime';
import type { SendParams, SendResult } from '../../common/protocol/runtime';
import { zeroUsage } from '../../common/transcript';
import { budgetStop } from '../../common/budget';
import { priceRequests } from '../../common/pricing';
import type { Entry, ModelSettings } from '../../common/transcript';
import { referenceBlocks } from '../../common/references';
import type { ClientConnection } from '../clientConnection';
import { runLoop } from '../agent/loop';
import { checkpointTurn, toolsAfter } from '../checkpoint/codeAt';
import type { ApprovalRequest } from '../agent/loop';
import { applyPolicy } from '../policy';
import { checkTextSize } from './textLimits';
import { createAnthropicClient } from '../model/lazyClient';
import { DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from '../../common/defaults';
import { accessOf } from '../runtimeContext';
import { stripsEarlierThinking } from '../agent/cacheMinimums';
import { isForkTranscript } from '../fork/history/directive';
import { closeInterruptedCalls } from '../fork/revive';
import { describeDamage, unrepaired } from '../session/damage';
import { parentSubagentHost } from '../fork/subagentHost';
import type { RuntimeContext } from '../runtimeContext';
import type { ModelAccess } from '../fork/forkContracts';
import { createSession } from '../session/createSession';
import type { Session } from '../session/session';
import { ALL_TOOLS } from '../tools/registry';
import { mcpHub } from '../mcp/hub';
import { createForkSandbox } from '../sandbox/forkSandbox';
import { warmSandboxProbe } from '../sandbox/platform';
import { DEFAULT_SANDBOX } from '../../common/sandbox';
import { SANDBOXED_TOOLS } from '../sandbox/sandboxForRun';
import { mcpToolsOf } from '../mcp/mcpTools';

export const MISSING_KEY_MESSAGE =
  'No Anthropic API key is set. Run "Fork: Set Anthropic API Key" or set ANTHROPIC_API_KEY.';

export function registerSend(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionSend, (params: SendParams) => handleSend(ctx, client, params));
}

async function handleSend(ctx: RuntimeContext, client: ClientConnection, params: SendParams): Promise<SendResult> {
  if (typeof params?.prompt !== 'string' || params.prompt.trim() === '') {
    throw new ResponseError(ErrorCodes.InvalidParams, 'session/send needs a non-empty prompt.');
  }
  checkTextSize('prompt', params.prompt);
  const access = accessOf(client);
  if (!access) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
  const session = await openOrCreate(ctx, client, params);
  // Held until the turn ends: idle eviction never makes a second copy of a session in use.
  const lease = ctx.store.holdLoaded(session.id)!;
  try {
    return await sendIn(ctx, client, params, access, session);
  } finally {
    lease.release();
  }
}

const damageShown = new WeakSet<Session>();

async function sendIn(ctx: RuntimeContext, client: ClientConnection, params: SendParams, access: ModelAccess, session: Session): Promise<SendResult> {
  if (session.bootstrap || isForkTranscript(session.history())) {
    // A fork runs only in the fork manager's loop, with the fork's tools and guard (docs/design.md §4.4, §4.6).
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `Session ${session.id} is a fork: continue it with fork/send (\`fork-agents send --fork ${session.id} "message"\`), not as a chat.`,
    );
  }
  if (ctx.turns.isRunning(session.id)) {
    throw new ResponseError(ErrorCodes.InvalidRequest, 'A turn is already running in this session; wait for it or cancel it.');
  }
  // After a rewind (session/rewind) the Chat view still shows the rewound turns and names their last
  // entry: the conversation continues from where the rewind left it.
  if (params.afterEntryId !== undefined && !session.rewindTo(params.afterEntryId) && !session.wasRewoundAway(params.afterEntryId)) {
    throw new ResponseError(ErrorCodes.InvalidParams, `Entry ${params.afterEntryId} is not in session ${session.id}.`);
  }
  // A runtime that died mid-tool-call left calls without results: close them, or every request is refused.
  for (const entry of closeInterruptedCalls(session)) emitEntry(client, session.id, params.turnId, entry);
  // Said in the chat once per load of a damaged file (the log and `transcript` say it too).
  const damage = unrepaired(session.damage);
  if (damage.length > 0 && !damageShown.has(session)) {
    damageShown.add(session);
    const text = damage.map(d => `Warning: ${describeDamage(d)}.`).join('\n');
    client.notify(sessionEvent, { sessionId: session.id, turnId: params.turnId, event: { type: 'text_delta', text: `${text}\n\n` } });
  }
  const touched = new Set<string>();
  const emit = (event: AgentEvent) => {
    if (event.type === 'tool_result') for (const file of event.files) touched.add(file);
    client.notify(sessionEvent, { sessionId: session.id, turnId: params.turnId, event });
  };
  const { approvalMode, approve } = applyPolicy(access, ({ callId, tool, input, description, category }: ApprovalRequest) =>
    client.request(permissionRequest, {
      sessionId: session.id, turnId: params.turnId, callId, toolName: tool.definition.name,
      category, description, input,
    }));
  const references = Array.isArray(params.references) ? referenceBlocks(params.references) : [];
  let prompt;
  // A full disk throws TranscriptWriteError: the prompt is not saved, so no turn starts and the session stays
  // as it was (the client gets InternalError with its message, src/runtime/protocolErrors.ts).
  prompt = session.commit('prompt', { role: 'user', content: [{ type: 'text', text: params.prompt }, ...references] });
  // Restricted Mode runs as `ask`: a fork started later from the CLI without a mode is no looser.
  session.recordApprovalMode(approvalMode);
  emit({ type: 'turn_start', promptEntryId: prompt.id });
  emit({ type: 'entry', entry: prompt });
  const result: SendResult = { sessionId: session.id, promptEntryId: prompt.id, stopReason: 'error', text: '', usage: zeroUsage() };
  const billsBefore = session.bills.length;
  // fork.sandbox.parent: the chat's own commands run sandboxed too, its folder writable, its .git not.
  const sandbox = access.sandbox?.parent && !access.restricted
    ? await createForkSandbox({ settings: access.sandbox, root: session.header.root, storeDir: ctx.store.storeDir, id: session.id })
    : undefined;
  const outcome = await ctx.turns.run(session.id, async signal => {
    // The code as the prompt found it, before any tool changes it (checkpoint/codeAt.ts).
    const started = checkpointTurn(ctx.store.storeDir, session, 'turn-start');
    const tools = new Map([...ALL_TOOLS, ...mcpToolsOf(session.header, { restricted: access.restricted === true })].map(tool => [tool.definition.name, tool]));
    const ended = await runLoop({
      session,
      model: createAnthropicClient(access),
      tools: toolsAfter(started, tools),
      toolContext: {
        root: session.header.root, ripgrepPath: access.ripgrepPath, subagents: parentSubagentHost(ctx.forks, session, access, ctx.tournaments),
        sandbox: sandbox?.commands, fileRules: sandbox?.fileRules,
      },
      sandboxedTools: sandbox?.commands ? SANDBOXED_TOOLS : undefined,
      approvalMode,
      compaction: access.compaction,
      beforeRequest: () => {
        // With thinking on a model that strips earlier thinking at any non-tool-result user block, a
        // notification beside tool results would drop this turn's thinking from the cached prefix: it waits
        // for the next prompt, where the thinking goes anyway (cacheMinimums.ts, stripsEarlierThinking).
        const { thinkingBudget, model } = session.header.settings;
        if (thinkingBudget && stripsEarlierThinking(model) && session.lastEntry()?.kind === 'tool_results') return;
        for (const text of ctx.forks.takeNotifications(session.id)) {
          emit({ type: 'entry', entry: session.commit('notification', { role: 'user', content: [{ type: 'text', text }] }) });
        }
      },
      approve,
      signal,
      emit,
      mayRequest: () => {
        const perChat = access.budgets?.perChat;
        const model = session.header.settings.model;
        if (!perChat) return undefined;
        const chat = ctx.forks.chatSpend(session.id);
        return budgetStop("This chat's budget (fork.budget.perChat)", perChat, chat.usage, chat.cost?.usd, model);
      },
    });
    await started;
    await checkpointTurn(ctx.store.storeDir, session, 'turn-end', [...touched]);
    return ended;
  }).finally(() => sandbox?.close());
  const lastEntryId = session.lastEntry()?.id;
  const error = outcome.stopReason === 'budget' ? { kind: 'budget', message: outcome.budgetReason ?? 'The chat reached its budget.' } : outcome.error;
  emit({ type: 'turn_end', stopReason: outcome.stopReason, error: outcome.error, lastEntryId });
  // Forks of this chat may follow: their sandbox probe runs now, off their fork/start (sandbox/platform.ts).
  if (!access.restricted && (access.sandbox?.mode ?? DEFAULT_SANDBOX.mode) !== 'off') warmSandboxProbe();
  // The requests this turn billed, each priced on its own (pricing.ts, priceRequest), as every surface does.
  const priced = priceRequests(session.header.settings.model, session.bills.slice(billsBefore), ctx.forks.prices);
  const turnCost = priced && { usd: priced.usd, uncachedUsd: priced.uncachedUsd };
  const chatCost = ctx.forks.chatSpend(session.id).cost;
  return {
    ...result, lastEntryId, stopReason: outcome.stopReason, text: outcome.text, usage: outcome.usage, error,
    model: session.header.settings.model,
    ...(turnCost && chatCost ? { cost: { turn: turnCost, chat: chatCost } } : {}),
    ...(outcome.budgetReason ? { budgetReason: outcome.budgetReason } : {}),
  };
}

async function openOrCreate(ctx: RuntimeContext, client: ClientConnection, params: SendParams): Promise<Session> {
  if (params.sessionId) return ctx.store.get(params.sessionId);
  // A new chat lists the MCP servers' tools now: they stay fixed in its header (docs/design.md §5).
  const mcp = await mcpHub.definitionsFor(client.config.mcpServers ?? []);
  return createSession(ctx.store, {
    mcp,
    root: params.root,
    title: params.prompt.split('\n', 1)[0],
    settings: sessionSettings(client, params.model),
  });
}

function emitEntry(client: ClientConnection, sessionId: string, turnId: string, entry: Entry): void {
  client.notify(sessionEvent, { sessionId, turnId, event: { type: 'entry', entry } });
}

/**
 * A new session's model settings, fixed in its header: forks copy them, so they keep the parent's
 * thinking config and cache TTL (docs/design.md §4.5: a different TTL or thinking setting is a different cache entry).
 */
function sessionSettings(client: ClientConnection, picked: unknown): ModelSettings {
  const { model, maxTokens, thinkingBudgetTokens, cacheTtl, effort } = client.config;
  // The model picked in the Chat view (SendParams.model) wins over the client's configured one.
  const chosen = (typeof picked === 'string' && picked.trim()) || model || DEFAULT_MODEL;
  const settings: ModelSettings = { model: chosen, maxTokens: maxTokens || DEFAULT_MAX_TOKENS };
  const facts = modelFacts(chosen);
  // A retired model answers every request with a 404: refused by name before a session is made for it.
  const retired = retiredToday(chosen, client.config.provider);
  if (retired) throw new ResponseError(ErrorCodes.InvalidParams, retiredModelText(chosen, retired));
  // Refused here, never sent: adaptive-thinking models answer a budget with a 400 (model pages and
  // https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking, read 2026-12-01).
  if (thinkingBudgetTokens && !facts.acceptsBudgetTokens) {
    throw new ResponseError(ErrorCodes.InvalidParams, `${chosen} takes no thinking budget (fork.thinking.budgetTokens / --thinking-budget): it thinks adaptively. Set the effort instead (fork.effort / --effort low|medium|high|xhigh|max), or leave both unset for the model's default.`);
  }
  if (effort) {
    if (!facts.effortLevels.includes(effort)) {
      const levels = facts.effortLevels.length > 0 ? `it takes ${facts.effortLevels.join(', ')}` : 'it takes no effort setting';
      throw new ResponseError(ErrorCodes.InvalidParams, `${chosen} does not take effort "${effort}" (fork.effort / --effort): ${levels}.`);
    }
    settings.effort = effort;
  }
  if (thinkingBudgetTokens) {
    if (thinkingBudgetTokens >= settings.maxTokens) {
      throw new ResponseError(ErrorCodes.InvalidParams, `The thinking budget (${thinkingBudgetTokens} tokens) must be below maxTokens (${settings.maxTokens}).`);
    }
    settings.thinkingBudget = thinkingBudgetTokens;
  }
  if (cacheTtl) settings.cacheTtl = cacheTtl;
  return settings;
}
