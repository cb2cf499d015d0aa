// model/*: a plain model request for the Chat view's language-model provider (docs/design.md §5: "its requests go
// through the runtime's one client"). The runtime adds the cache breakpoints (request.ts), retries like a
// turn does and uses the key the client configured; the host never holds a second API client.
import type { ErrorInfo } from '../agentEvents';
import type { Message, ToolDefinition, Usage } from '../transcript';
import { notification, request } from './descriptor';

export interface ModelChatParams {
  /** Client-chosen id echoed in every `model/part` and used by `model/cancel`. */
  requestId: string;
  model: string;
  maxTokens: number;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  /** 'any': the model must call a tool (VS Code's LanguageModelChatToolMode.Required). */
  toolChoice?: 'auto' | 'any';
}

export interface ModelChatResult {
  /** The whole answer (text and tool_use blocks); its text was also streamed as `model/part`s. */
  message?: Message;
  stopReason: string;
  usage?: Usage;
  /** The request failed after the retries it was allowed (or was cancelled). */
  error?: ErrorInfo;
}
export const modelChat = request<ModelChatParams, ModelChatResult>('model/chat');

export type ModelPart =
  | { type: 'text'; text: string }
  | { type: 'retry'; attempt: number; delayMs: number; error: ErrorInfo };
export interface ModelPartParams { requestId: string; part: ModelPart }
/** Runtime → client while a `model/chat` request streams; all arrive before its response. */
export const modelPart = notification<ModelPartParams>('model/part');

export interface ModelCancelParams { requestId: string }
export interface ModelCancelResult { cancelled: boolean }
export const modelCancel = request<ModelCancelParams, ModelCancelResult>('model/cancel');

export interface ListedModel { id: string; name: string; contextWindow?: number }
/** The Claude models the configured endpoint offers (`models.list`); `error` when it lists none. */
export type ModelListParams = Record<string, never> | undefined;
export interface ModelListResult { models: ListedModel[]; error?: string }
export const modelList = request<ModelListParams, ModelListResult>('model/list');
