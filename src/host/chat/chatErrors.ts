// Every way a chat turn can fail, as a message that says what happened and what to do.
// Pure: turn errors come from the runtime's ErrorInfo, request errors from JSON-RPC rejections.
import type { ErrorInfo } from '../../common/agentEvents';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import { RuntimeUnavailableError } from '../runtimeApi';

export interface ChatErrorAction { command: string; title: string; arguments?: unknown[] }
export interface ChatErrorView { message: string; action?: ChatErrorAction }

const SET_KEY: ChatErrorAction = { command: 'forkAgents.setApiKey', title: 'Set API Key' };
const SHOW_LOG: ChatErrorAction = { command: 'forkAgents.showRuntimeLog', title: 'Show Runtime Log' };
const BASE_URL_SETTING: ChatErrorAction = { command: 'workbench.action.openSettings', title: 'Open Setting', arguments: ['fork.anthropic.baseUrl'] };

// vscode-jsonrpc's codes for a connection that went away under a pending request.
const CONNECTION_LOST = new Set([-32099, -32098, -32097, -32096]);
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

export const NO_FOLDER_MESSAGE = 'Open a folder first: @fork works on the files of a workspace folder.';

/** A turn that ran but ended in an error (after the runtime's retries). */
export function turnErrorView(error: Pick<ErrorInfo, 'message' | 'status'> & { kind: string }, baseUrl: string): ChatErrorView {
  const status = error.status;
  switch (error.kind) {
    case 'missing_key':
      return missingKey();
    case 'auth':
      return {
        message: `The Anthropic API rejected the API key${code(status)}. Set a valid key with "Fork: Set Anthropic API Key", then send your request again. (${error.message})`,
        action: SET_KEY,
      };
    case 'rate_limit':
      return { message: `The Anthropic API is still rate limiting requests${code(status)} after several retries. Wait a minute, then send your request again. (${error.message})` };
    case 'overloaded':
      return { message: `The Anthropic API is overloaded${code(status)} and did not recover during the retries. Try again in a few minutes. (${error.message})` };
    case 'server':
      return { message: `The Anthropic API failed${code(status)} after several retries. Try again shortly. (${error.message})` };
    case 'network':
      return {
        message: `Could not reach the model endpoint ${baseUrl}. Check your connection and the "fork.anthropic.baseUrl" setting (or ANTHROPIC_BASE_URL), then send your request again. (${error.message.replace(/^Could not reach the model endpoint:\s*/, '')})`,
        action: BASE_URL_SETTING,
      };
    case 'stream_cut':
      return { message: "The model's response was cut off mid-stream. The partial answer was not kept, so the conversation is intact: send your request again." };
    case 'budget':
      return { message: `Stopped before the next model request: ${error.message} Raise "fork.budget.perChat" (or clear it) to go on; the conversation is intact.` };
    case 'bad_request':
      return { message: `The Anthropic API refused the request${code(status)}: ${error.message} This is likely a bug in Fork Agents; the runtime log has details.`, action: SHOW_LOG };
    default:
      return { message: `Fork Agents failed: ${error.message} The runtime log has details.`, action: SHOW_LOG };
  }
}

/** `session/send` itself was rejected, or the runtime could not be reached. */
export function requestErrorView(error: unknown): ChatErrorView {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RuntimeUnavailableError) return { message, action: SHOW_LOG };
  const rpcCode = (error as { code?: unknown } | undefined)?.code;
  if (rpcCode === RuntimeErrorCode.missingKey) return missingKey();
  if (typeof rpcCode === 'number' && CONNECTION_LOST.has(rpcCode)) {
    return {
      message: 'The Fork Agents runtime stopped during this request and is being restarted. What was already done is kept: send your request again.',
      action: SHOW_LOG,
    };
  }
  if (rpcCode === INVALID_REQUEST) return { message };
  if (rpcCode === INVALID_PARAMS) return { message: `Fork Agents could not continue this chat: ${message} Start a new chat to begin a fresh session.` };
  return { message: `Fork Agents failed: ${message} The runtime log has details.`, action: SHOW_LOG };
}

function missingKey(): ChatErrorView {
  return {
    message: 'No Anthropic API key is set. Run "Fork: Set Anthropic API Key" (or set ANTHROPIC_API_KEY before starting VS Code), then send your request again.',
    action: SET_KEY,
  };
}

function code(status: number | undefined): string {
  return status === undefined ? '' : ` (${status})`;
}
