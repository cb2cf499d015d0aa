// The Claude models this window offers: the endpoint's (`model/list`), else `fork.models`, and always
// `fork.model` first. One list for the Chat view's picker and a new fork's model choice.
import { modelList } from '../../common/protocol/model';
import type { ListedModel } from '../../common/protocol/model';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';

/** The endpoint's models; `problem` says why there are none (the runtime unreachable, or the endpoint's list failed or is empty). */
export interface EndpointModels {
  models: ListedModel[];
  problem?: string;
}

export async function endpointModels(runtime: RuntimeApi): Promise<EndpointModels> {
  try {
    const { models, error } = await runtime.request(modelList, {});
    return models.length > 0 ? { models } : { models: [], problem: error ?? 'the endpoint lists no Claude models' };
  } catch (error) {
    // The runtime is not reachable yet: the configured list still lets the Chat view work meanwhile.
    return { models: [], problem: `the runtime is not reachable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The endpoint's models (else `fork.models`) with `fork.model` first. */
export function offeredModels(settings: HostSettings, listed: readonly ListedModel[]): ListedModel[] {
  const models = listed.length > 0 ? listed : settings.fallbackModels();
  const preferred = settings.model();
  return [models.find(m => m.id === preferred) ?? { id: preferred, name: preferred }, ...models.filter(m => m.id !== preferred)];
}

export async function availableModels(settings: HostSettings, runtime: RuntimeApi): Promise<ListedModel[]> {
  return offeredModels(settings, (await endpointModels(runtime)).models);
}

/**
 * The name the Chat view's picker shows. The picker sorts every model by name and takes the first unless a
 * provider declares a default, which the stable API cannot: `LanguageModelChatInformation.isDefault` is
 * declared only in the proposed `chatProvider` API, marked "NOT BEING FINALIZED" (microsoft/vscode,
 * src/vscode-dts/vscode.proposed.chatProvider.d.ts at 005065046a4106f48890fb9d46b2ce6f36815e88, read
 * 2026-12-02), and the stable `LanguageModelChatInformation` (@types/vscode 1.104) has no such field.
 * VS Code 1.139's picker, as seen in code-server: models sorted by `name.localeCompare`, then a declared
 * default, then the first. So `fork.model` leads with a star, which sorts before letters and reads as
 * "the default".
 */
export const DEFAULT_MARK = '★';

export function pickerName(model: Pick<ListedModel, 'id' | 'name'>, preferred: string): string {
  return model.id === preferred ? `${DEFAULT_MARK} ${model.name}` : model.name;
}
