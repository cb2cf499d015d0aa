// model/list, model/chat and model/cancel: the Chat view's models and language-model requests (docs/design.md §5),
// sent through the runtime's one client. The body comes from request.ts like a session's (cache breakpoints included),
// the retry loop is the turns' one, and the key is the one this client configured.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { modelCancel, modelChat, modelList, modelPart } from '../../common/protocol/model';
import type { ModelChatParams, ModelChatResult } from '../../common/protocol/model';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import type { Entry, SessionHeader } from '../../common/transcript';
import { buildRequestBody } from '../agent/request';
import type { MessagesRequestBody } from '../model/wire';
import { streamWithRetries } from '../agent/retry';
import type { ClientConnection } from '../clientConnection';
import { createAnthropicClient, listModels } from '../model/lazyClient';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { MISSING_KEY_MESSAGE } from './send';
import { modelFacts } from '../../common/models';

type ChatBody = MessagesRequestBody & { tool_choice?: { type: 'auto' | 'any' } };

export function registerModelChat(_ctx: RuntimeContext, client: ClientConnection): void {
  const running = new Map<string, AbortController>();
  client.rpc.onClose(() => {
    for (const abort of running.values()) abort.abort();
  });
  client.handle(modelCancel, params => {
    const abort = running.get(params?.requestId);
    abort?.abort();
    return { cancelled: abort !== undefined };
  });
  client.handle(modelList, async () => {
    const access = accessOf(client);
    if (!access) return { models: [], error: MISSING_KEY_MESSAGE };
    try {
      return { models: await listModels(access) };
    } catch (error) {
      return { models: [], error: `The endpoint lists no models: ${error instanceof Error ? error.message : String(error)}` };
    }
  });
  client.handle(modelChat, async (params: ModelChatParams): Promise<ModelChatResult> => {
    const problem = invalidParams(params);
    if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `model/chat: ${problem}`);
    const access = accessOf(client);
    if (!access) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
    if (running.has(params.requestId)) throw new ResponseError(ErrorCodes.InvalidParams, `model/chat: request ${params.requestId} is already running.`);
    const abort = new AbortController();
    running.set(params.requestId, abort);
    try {
      const { body, notice } = chatBody(params);
      const model = createAnthropicClient(access);
      const response = await streamWithRetries(model, () => body, abort.signal, {
        onText: text => client.notify(modelPart, { requestId: params.requestId, part: { type: 'text', text } }),
        onThinking: () => undefined,
      }, {
        onRetry: (attempt, delayMs, error) => client.notify(modelPart, { requestId: params.requestId, part: { type: 'retry', attempt, delayMs, error } }),
      });
      if ('error' in response) return { stopReason: response.error.kind === 'cancelled' ? 'cancelled' : 'error', error: response.error, ...(notice ? { notice } : {}) };
      const content = response.message.content.filter(block => block.type === 'text' || block.type === 'tool_use');
      if (notice && !content.some(block => block.type === 'tool_use')) {
        // Required mode promises a tool call; an answer without one is an error the caller can act on.
        const message = `${params.model} answered without calling a tool, and it does not accept a forced tool choice (VS Code's required tool mode), so none could be demanded.`;
        return { stopReason: 'error', error: { kind: 'bad_request', message }, usage: response.usage, notice };
      }
      return { message: { role: 'assistant', content }, stopReason: response.stopReason, usage: response.usage, ...(notice ? { notice } : {}) };
    } finally {
      running.delete(params.requestId);
    }
  });
}

/**
 * The chat's messages as a session's entries, so request.ts places the same breakpoints a turn gets: the
 * end of the system prompt (tools + system), the last message, and the user message before the last
 * assistant run — where the Chat view's previous request ended, so each request reads the last one's cache.
 */
export function chatBody(params: ModelChatParams): { body: ChatBody; notice?: string } {
  const header: SessionHeader = {
    id: params.requestId, createdAt: '', root: '', title: '', systemPrompt: params.system ?? '',
    tools: params.tools ?? [], settings: { model: params.model, maxTokens: params.maxTokens },
  };
  const entries: Entry[] = params.messages.map((message, index) => ({
    id: String(index), kind: message.role === 'user' ? 'prompt' : 'response', time: '', message,
  }));
  const body: ChatBody = buildRequestBody(header, entries);
  // The API rejects an empty text block: without a system prompt the message breakpoints cover the tools.
  if (!params.system?.trim()) delete (body as Partial<MessagesRequestBody>).system;
  if (!params.tools?.length || !params.toolChoice) return { body };
  if (params.toolChoice === 'any' && !modelFacts(params.model).acceptsForcedToolChoice) {
    // Sonnet 5.5 answers tool_choice any/tool with a 400 (https://platform.claude.com/docs/en/models/sonnet-5-5/
    // whats-new-sonnet-5-5, "Forced tool use is not supported", read 2026-12-01): the model is told instead,
    // and the caller hears that the call was asked for, not forced.
    body.tool_choice = { type: 'auto' };
    const ask = 'Respond by calling one of the available tools.';
    body.system = [...(body.system ?? []), { type: 'text', text: ask }];
    return { body, notice: `${params.model} does not accept a forced tool choice: VS Code's required tool mode was sent as tool_choice "auto" with an instruction to call a tool.` };
  }
  body.tool_choice = { type: params.toolChoice };
  return { body };
}

function invalidParams(params: ModelChatParams | undefined): string | undefined {
  if (!params || typeof params.requestId !== 'string' || params.requestId === '') return 'requestId is required.';
  if (typeof params.model !== 'string' || params.model === '') return 'model is required.';
  if (typeof params.maxTokens !== 'number' || params.maxTokens < 1) return 'maxTokens must be a positive number.';
  if (!Array.isArray(params.messages) || params.messages.length === 0) return 'messages must be a non-empty array.';
  return undefined;
}
