// The Claude models this window offers: the endpoint's (`model/list`), else `fork.models`, and always
// `fork.model` first, without retired models. One list for the Chat view's picker and a new fork's model choice.
import { modelList } from '../../common/protocol/model';
import type { ListedModel } from '../../common/protocol/model';
import { retiredOn, utcDay } from '../../common/models';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';

/** The endpoint's models; `problem` says why there are none (the runtime unreachable, or the endpoint's list failed or is empty). */
export interface EndpointModels {
  models: ListedModel[];
  problem?: string;
}

export async function endpointModels(runtime: Pick<RuntimeApi, 'request'>): Promise<EndpointModels> {
  try {
    const { models, error } = await runtime.request(modelList, {});
    return models.length > 0 ? { models } : { models: [], problem: error ?? 'the endpoint lists no Claude models' };
  } catch (error) {
    // The runtime is not reachable yet: the configured list still lets the Chat view work meanwhile.
    return { models: [], problem: `the runtime is not reachable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

type ModelSettings = Pick<HostSettings, 'fallbackModels' | 'model' | 'provider'>;

/** The endpoint's models (else `fork.models`) with `fork.model` first, without retired models. */
export function offeredModels(settings: ModelSettings, listed: readonly ListedModel[], today = utcDay()): ListedModel[] {
  const models = listed.length > 0 ? listed : settings.fallbackModels();
  const preferred = settings.model();
  // A retired model (models.ts `retiresOn`) fails every request on the Claude API: the lists leave it out,
  // and `fork.model` set to one is kept but says so, so the user sees why its requests are refused.
  const provider = settings.provider().provider;
  const retired = (id: string) => retiredOn(id, today, provider);
  const first = models.find(m => m.id === preferred) ?? { id: preferred, name: preferred };
  const day = retired(preferred);
  return [day ? { ...first, name: `${first.name} ${retiredMark(day)}` } : first, ...models.filter(m => m.id !== preferred && !retired(m.id))];
}

export async function availableModels(settings: ModelSettings, runtime: Pick<RuntimeApi, 'request'>, today = utcDay()): Promise<ListedModel[]> {
  return offeredModels(settings, (await endpointModels(runtime)).models, today);
}

/** What a retired model's name carries in the lists. */
export function retiredMark(day: string): string {
  return `(retired ${day})`;
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
