// The `fork-agents` language model (DESIGN §5): without a tool-capable model the Chat view refuses every
// request, @fork included. It answers for real, straight from the Messages API.
import * as vscode from 'vscode';
import { messagesUrl } from '../modelAccess';
import type { HostSettings } from '../settings';
import { streamMessages } from './messagesApi';
import type { StreamPart } from './streamDecoder';
import { buildMessagesBody } from './toAnthropic';

export const LM_VENDOR = 'fork-agents';
const MAX_INPUT_TOKENS = 200_000;

/** Resolves once the workbench lists the model: until then the Chat view answers "Language model unavailable". */
export async function registerLanguageModel(context: vscode.ExtensionContext, settings: HostSettings): Promise<void> {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.LanguageModelChatProvider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: () => [modelInformation(settings)],
    provideLanguageModelChatResponse: (model, messages, options, progress, token) => respond(settings, model, messages, options, progress, token),
    // Close enough for budgeting: Claude averages about four characters a token.
    provideTokenCount: async (_model, text) => Math.ceil(textLength(text) / 4),
  };
  context.subscriptions.push(
    changed,
    settings.onDidChange(() => changed.fire()),
    vscode.lm.registerLanguageModelChatProvider(LM_VENDOR, provider),
  );
  // The Chat view lists a provider's models only once something has asked for them.
  await vscode.lm.selectChatModels({ vendor: LM_VENDOR });
}

function modelInformation(settings: HostSettings): vscode.LanguageModelChatInformation {
  const model = settings.model();
  return {
    id: model,
    name: model,
    family: 'claude',
    version: model,
    detail: 'Fork Agents',
    tooltip: `Anthropic ${model} through Fork Agents`,
    maxInputTokens: MAX_INPUT_TOKENS,
    maxOutputTokens: settings.maxTokens(),
    capabilities: { toolCalling: true, imageInput: false },
  };
}

async function respond(
  settings: HostSettings,
  model: vscode.LanguageModelChatInformation,
  messages: readonly vscode.LanguageModelChatRequestMessage[],
  options: vscode.ProvideLanguageModelChatResponseOptions,
  progress: vscode.Progress<vscode.LanguageModelResponsePart>,
  token: vscode.CancellationToken,
): Promise<void> {
  const access = await settings.modelAccess();
  if (!access.apiKey) {
    throw vscode.LanguageModelError.NoPermissions('No Anthropic API key is set. Run "Fork: Set Anthropic API Key" or set ANTHROPIC_API_KEY.');
  }
  const body = buildMessagesBody(messages, {
    model: model.id,
    maxTokens: Math.min(access.maxTokens, model.maxOutputTokens),
    tools: options.tools,
    toolRequired: options.toolMode === vscode.LanguageModelChatToolMode.Required,
  });
  const abort = new AbortController();
  const cancellation = token.onCancellationRequested(() => abort.abort());
  try {
    await streamMessages({ url: messagesUrl(access.baseUrl), apiKey: access.apiKey, body, signal: abort.signal, onPart: part => progress.report(toResponsePart(part)) });
  } catch (error) {
    if (token.isCancellationRequested) return;
    throw error;
  } finally {
    cancellation.dispose();
  }
}

function toResponsePart(part: StreamPart): vscode.LanguageModelResponsePart {
  return part.type === 'text' ? new vscode.LanguageModelTextPart(part.text) : new vscode.LanguageModelToolCallPart(part.id, part.name, part.input);
}

function textLength(text: string | vscode.LanguageModelChatRequestMessage): number {
  if (typeof text === 'string') return text.length;
  return text.content.reduce<number>((sum, part) => sum + JSON.stringify(part ?? '').length, 0);
}
