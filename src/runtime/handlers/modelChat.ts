// model/list, model/chat and model/cancel: the Chat view's models and language-model requests (docs/design.md §5),
// sent through the runtime's one client. The body comes from request.ts like a session's (cache breakpoints included),
// the retry loop is the turns' one, and the key is the one this client configured.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { modelCancel, modelChat, modelList, modelPart } from '../../common/protocol/model';
import type { ModelChatParams, ModelChatResult } from '../../common/protocol/model';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import type { Entry, SessionHeader } from '../../common/transcript';
import { buildRequestBody } from '../agent/request';
import type { MessagesRequestBody } from '../model/wire';
import { streamWithRetries } from '../agent/retry';
import type { ClientConnection } from '../clientConnection';
import { createAnthropicClient, listModels } from '../model/anthropicClient';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { MISSING_KEY_MESSAGE } from './send';

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
      const body = chatBody(params);
      const model = createAnthropicClient(access);
      const response = await streamWithRetries(model, () => body, abort.signal, {
        onText: text => client.notify(modelPart, { requestId: params.requestId, part: { type: 'text', text } }),
        onThinking: () => undefined,
      }, {
        onRetry: (attempt, delayMs, error) => client.notify(modelPart, { requestId: params.requestId, part: { type: 'retry', attempt, delayMs, error } }),
      });
      if ('error' in response) return { stopReason: response.error.kind === 'cancelled' ? 'cancelled' : 'error', error: response.error };
      const content = response.message.content.filter(block => block.type === 'text' || block.type === 'tool_use');
      return { message: { role: 'assistant', content }, stopReason: response.stopReason, usage: response.usage };
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
export function chatBody(params: ModelChatParams): ChatBody {
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
  if (params.tools?.length && params.toolChoice) body.tool_choice = { type: params.toolChoice };
  return body;
}

function invalidParams(params: ModelChatParams | undefined): string | undefined {
  if (!params || typeof params.requestId !== 'string' || params.requestId === '') return 'requestId is required.';
  if (typeof params.model !== 'string' || params.model === '') return 'model is required.';
  if (typeof params.maxTokens !== 'number' || params.maxTokens < 1) return 'maxTokens must be a positive number.';
  if (!Array.isArray(params.messages) || params.messages.length === 0) return 'messages must be a non-empty array.';
  return undefined;
}
