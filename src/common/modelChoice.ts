// The model of a new fork: by default the parent's, which keeps cache parity (docs/design.md §4.5:
// the fork's first request repeats the parent's prefix and reads its prompt cache). The prompt cache is
// per model, so a fork on another model pays for its whole prefix again. One wording for every UI. Pure.

export interface ModelOption { id: string; name: string }

export const MAX_MODEL_ID_LENGTH = 256;

/** Why a requested model id is refused (undefined: accepted). Ids of every provider fit: letters, digits, `.:/@_-`. */
export function modelIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `model must be a string (got ${Array.isArray(value) ? 'an array' : typeof value}).`;
  if (value === '' || value.length > MAX_MODEL_ID_LENGTH || !/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/.test(value)) {
    return `model ${JSON.stringify(value.slice(0, 80))} is not a model id (letters, digits and . _ : / @ - only, at most ${MAX_MODEL_ID_LENGTH} characters).`;
  }
  return undefined;
}

/** The parent's model first (the default), then the others listed, each once. */
export function forkModelOptions(parentModel: string, listed: readonly ModelOption[]): ModelOption[] {
  const parent = listed.find(m => m.id === parentModel) ?? { id: parentModel, name: parentModel };
  return [parent, ...listed.filter(m => m.id !== parentModel)];
}

/** What the UIs say next to the default. */
export function sameModelText(parentModel: string): string {
  return `${parentModel}: the conversation's model, so the fork reads its prompt cache.`;
}

/** What the UIs say when another model is chosen. */
export function coldCacheText(model: string, parentModel: string): string {
  return `Cold cache: ${model} cannot read the prompt cache of ${parentModel}, so the fork's first request pays for the whole conversation again (it costs more).`;
}
