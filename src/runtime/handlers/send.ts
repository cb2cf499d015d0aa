// session/send: one user prompt, run to the end of the agent's turn, events streamed as session/event.
import { ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import type { AgentEvent } from '../../common/agentEvents';
import { RuntimeErrorCode, permissionRequest, sessionEvent, sessionSend } from '../../common/protocol/runtime';
import type { SendParams, SendResult } from '../../common/protocol/runtime';
import { zeroUsage } from '../../common/transcript';
import { referenceBlocks } from '../../common/references';
import type { ClientConnection } from '../clientConnection';
import { runLoop } from '../agent/loop';
import { createAnthropicClient } from '../model/anthropicClient';
import { DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from '../../common/defaults';
import { accessOf } from '../runtimeContext';
import { parentSubagentHost } from '../fork/subagentHost';
import type { RuntimeContext } from '../runtimeContext';
import { BadRootError, createSession } from '../session/createSession';
import { SessionNotFoundError } from '../session/sessionStore';
import type { Session } from '../session/session';
import { ALL_TOOLS } from '../tools/registry';
import { mcpHub } from '../mcp/hub';
import { mcpToolsOf } from '../mcp/mcpTools';

export const MISSING_KEY_MESSAGE =
  'No Anthropic API key is set. Run "Fork: Set Anthropic API Key" or set ANTHROPIC_API_KEY.';

export function registerSend(ctx: RuntimeContext, client: ClientConnection): void {
  client.rpc.onRequest(sessionSend.method, (params: SendParams) => handleSend(ctx, client, params));
}

async function handleSend(ctx: RuntimeContext, client: ClientConnection, params: SendParams): Promise<SendResult> {
  if (typeof params?.prompt !== 'string' || params.prompt.trim() === '') {
    throw new ResponseError(ErrorCodes.InvalidParams, 'session/send needs a non-empty prompt.');
  }
  const access = accessOf(client);
  if (!access) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
  const session = await openOrCreate(ctx, client, params);
  if (ctx.turns.isRunning(session.id)) {
    throw new ResponseError(ErrorCodes.InvalidRequest, 'A turn is already running in this session; wait for it or cancel it.');
  }
  if (params.afterEntryId !== undefined && !session.rewindTo(params.afterEntryId)) {
    throw new ResponseError(ErrorCodes.InvalidParams, `Entry ${params.afterEntryId} is not in session ${session.id}.`);
  }
  const emit = (event: AgentEvent) => client.notify(sessionEvent, { sessionId: session.id, turnId: params.turnId, event });
  const references = Array.isArray(params.references) ? referenceBlocks(params.references) : [];
  const prompt = session.commit('prompt', { role: 'user', content: [{ type: 'text', text: params.prompt }, ...references] });
  emit({ type: 'turn_start', promptEntryId: prompt.id });
  emit({ type: 'entry', entry: prompt });
  const result: SendResult = { sessionId: session.id, promptEntryId: prompt.id, stopReason: 'error', text: '', usage: zeroUsage() };
  const outcome = await ctx.turns.run(session.id, signal =>
    runLoop({
      session,
      model: createAnthropicClient(access),
      tools: new Map([...ALL_TOOLS, ...mcpToolsOf(session.header)].map(tool => [tool.definition.name, tool])),
      toolContext: { root: session.header.root, ripgrepPath: access.ripgrepPath, subagents: parentSubagentHost(ctx.forks, session, access) },
      approvalMode: access.approvalMode,
      compaction: access.compaction,
      beforeRequest: () => {
        for (const text of ctx.forks.takeNotifications(session.id)) {
          emit({ type: 'entry', entry: session.commit('notification', { role: 'user', content: [{ type: 'text', text }] }) });
        }
      },
      approve: ({ callId, tool, input, description }) =>
        client.request(permissionRequest, {
          sessionId: session.id, turnId: params.turnId, callId, toolName: tool.definition.name,
          category: tool.category, description, input,
        }),
      signal,
      emit,
    }),
  );
  const lastEntryId = session.lastEntry()?.id;
  emit({ type: 'turn_end', stopReason: outcome.stopReason, error: outcome.error, lastEntryId });
  return { ...result, lastEntryId, stopReason: outcome.stopReason, text: outcome.text, usage: outcome.usage, error: outcome.error };
}

async function openOrCreate(ctx: RuntimeContext, client: ClientConnection, params: SendParams): Promise<Session> {
  try {
    if (params.sessionId) return ctx.store.get(params.sessionId);
    // A new chat lists the MCP servers' tools now: they stay fixed in its header (DESIGN §5).
    const mcp = await mcpHub.definitionsFor(client.config.mcpServers ?? []);
    return await createSession(ctx.store, {
      mcp,
      root: params.root,
      title: params.prompt.split('\n', 1)[0],
      settings: { model: (typeof params.model === 'string' && params.model.trim()) || client.config.model || DEFAULT_MODEL, maxTokens: client.config.maxTokens || DEFAULT_MAX_TOKENS },
    });
  } catch (error) {
    if (error instanceof SessionNotFoundError || error instanceof BadRootError) {
      throw new ResponseError(ErrorCodes.InvalidParams, error.message);
    }
    throw error;
  }
}
