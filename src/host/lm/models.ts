// The Claude models this window offers: the endpoint's (`model/list`), else `fork.models`, and always
// `fork.model` first. One list for the Chat view's picker and a new fork's model choice.
import { modelList } from '../../common/protocol/model';
import type { ListedModel } from '../../common/protocol/model';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';

export async function availableModels(settings: HostSettings, runtime: RuntimeApi): Promise<ListedModel[]> {
  let listed: ListedModel[] = [];
  try {
    listed = (await runtime.request(modelList, {})).models;
  } catch {
    // The runtime is not reachable yet: the configured list below still lets the Chat view work.
  }
  const models = listed.length > 0 ? listed : settings.fallbackModels();
  const preferred = settings.model();
  return [models.find(m => m.id === preferred) ?? { id: preferred, name: preferred }, ...models.filter(m => m.id !== preferred)];
}
