// The `fork-agents` language model (docs/design.md §5): without a tool-capable model the Chat view refuses every
// request, @fork included. Its requests go through the runtime (`model/chat`): the runtime's one SDK
// client, its cache breakpoints, its retries and the key it was configured with.
import { modelFacts } from '../../common/models';
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { ErrorInfo } from '../../common/agentEvents';
import { modelCancel, modelChat, modelPart } from '../../common/protocol/model';
import type { ListedModel, ModelPartParams } from '../../common/protocol/model';
import { turnErrorView } from '../chat/chatErrors';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';
import { ListRetry } from './listRetry';
import { endpointModels, offeredModels, pickerName } from './models';
import { buildChatParams } from './toAnthropic';

export const LM_VENDOR = 'fork-agents';

/** Resolves once the workbench lists the model: until then the Chat view answers "Language model unavailable". */
export async function registerLanguageModel(context: vscode.ExtensionContext, settings: HostSettings, runtime: RuntimeApi, log: vscode.LogOutputChannel): Promise<void> {
  const changed = new vscode.EventEmitter<void>();
  const retry = new ListRetry({
    list: () => endpointModels(runtime),
    onListed: () => {
      log.info('The endpoint\'s models arrived: the Chat view\'s picker lists them now.');
      changed.fire();
    },
    onGaveUp: problem => log.info(`The Chat view's picker keeps fork.model / fork.models: ${problem}`),
  });
  // One listener for every request's parts (the connection keeps one handler per method).
  const streams = new Map<string, (part: ModelPartParams['part']) => void>();
  const told = new Set<string>();
  const provider: vscode.LanguageModelChatProvider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: async () => {
      const listed = await endpointModels(runtime);
      retry.given(listed);
      return modelInformation(settings, offeredModels(settings, listed.models));
    },
    provideLanguageModelChatResponse: (model, messages, options, progress, token) => respond({ settings, runtime, streams, told }, model, messages, options, progress, token),
    // Close enough for budgeting: Claude averages about four characters a token.
    provideTokenCount: async (_model, text) => Math.ceil(textLength(text) / 4),
  };
  context.subscriptions.push(
    changed,
    retry,
    settings.onDidChange(() => changed.fire()),
    runtime.listen(modelPart, params => streams.get(params.requestId)?.(params.part)),
    vscode.lm.registerLanguageModelChatProvider(LM_VENDOR, provider),
  );
  // The Chat view lists a provider's models only once something has asked for them.
  await vscode.lm.selectChatModels({ vendor: LM_VENDOR });
}

/** The Chat view's models (offeredModels), as the workbench describes them. */
function modelInformation(settings: HostSettings, ordered: ListedModel[]): vscode.LanguageModelChatInformation[] {
  const preferred = settings.model();
  return ordered.map(model => ({
    id: model.id,
    name: pickerName(model, preferred),
    family: 'claude',
    version: model.id,
    detail: 'Fork Agents',
    tooltip: `Anthropic ${model.id} through Fork Agents${model.id === preferred ? ' (fork.model: the default)' : ''}`,
    // The endpoint's figure (/v1/models max_input_tokens), the user's setting, else the model table's.
    maxInputTokens: model.contextWindow ?? settings.contextWindow() ?? modelFacts(model.id).contextWindow,
    maxOutputTokens: settings.maxTokens(),
    capabilities: { toolCalling: true, imageInput: false },
  }));
}

interface Deps {
  settings: HostSettings;
  runtime: RuntimeApi;
  streams: Map<string, (part: ModelPartParams['part']) => void>;
  /** Notices already shown this window (the same adaptation repeats on every request of a chat). */
  told: Set<string>;
}

/**
 * How the runtime adapted a request to the model (e.g. VS Code's required tool mode sent as "auto" to a
 * model that refuses a forced tool choice): the user hears it once, not in the model's answer, which the
 * Chat view would send back as conversation.
 */
function tellOnce(told: Set<string>, notice: string): void {
  if (told.has(notice)) return;
  told.add(notice);
  void vscode.window.showInformationMessage(`Fork Agents: ${notice}`);
}

async function respond(
  deps: Deps,
  model: vscode.LanguageModelChatInformation,
  messages: readonly vscode.LanguageModelChatRequestMessage[],
  options: vscode.ProvideLanguageModelChatResponseOptions,
  progress: vscode.Progress<vscode.LanguageModelResponsePart>,
  token: vscode.CancellationToken,
): Promise<void> {
  const requestId = randomUUID();
  const params = {
    requestId,
    ...buildChatParams(messages, {
      model: model.id,
      maxTokens: Math.min(deps.settings.maxTokens(), model.maxOutputTokens),
      tools: options.tools,
      toolRequired: options.toolMode === vscode.LanguageModelChatToolMode.Required,
    }),
  };
  deps.streams.set(requestId, part => {
    if (part.type === 'text' && !token.isCancellationRequested) progress.report(new vscode.LanguageModelTextPart(part.text));
  });
  // Safe to drop: cancelling a request the runtime no longer has (ended, or the runtime is gone): nothing to stop.
  const cancellation = token.onCancellationRequested(() => void deps.runtime.request(modelCancel, { requestId }).catch(() => undefined));
  try {
    const result = await deps.runtime.request(modelChat, params);
    if (token.isCancellationRequested || result.error?.kind === 'cancelled') return;
    if (result.notice && !result.error) tellOnce(deps.told, result.notice);
    if (result.error) throw toLanguageModelError(result.error, deps.settings.displayBaseUrl(), result.notice);
    for (const block of result.message?.content ?? []) {
      if (block.type === 'tool_use') {
        const input = block.input && typeof block.input === 'object' ? (block.input as object) : {};
        progress.report(new vscode.LanguageModelToolCallPart(block.id, block.name, input));
      }
    }
  } catch (error) {
    if (token.isCancellationRequested) return;
    if ((error as { code?: unknown }).code === -32001) throw vscode.LanguageModelError.NoPermissions((error as Error).message);
    throw error;
  } finally {
    cancellation.dispose();
    deps.streams.delete(requestId);
  }
}

function toLanguageModelError(error: ErrorInfo, baseUrl: string, notice?: string): Error {
  const message = turnErrorView(error, baseUrl).message + (notice && !error.message.includes(notice) ? ` (${notice})` : '');
  if (error.kind === 'auth') return vscode.LanguageModelError.NoPermissions(message);
  return new Error(message);
}

function textLength(text: string | vscode.LanguageModelChatRequestMessage): number {
  if (typeof text === 'string') return text.length;
  return text.content.reduce<number>((sum, part) => sum + JSON.stringify(part ?? '').length, 0);
}
