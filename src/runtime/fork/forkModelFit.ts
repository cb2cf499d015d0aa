// Whether a fork on another model can keep its parent's settings.
import { modelFacts } from '../../common/models';
import type { ModelSettings } from '../../common/transcript';

/**
 * A fork keeps its parent's effort and thinking budget (its prefix stays the parent's), so one on another
 * model that does not take them is refused at start, by name, rather than sent without them or refused by
 * the API (effort levels and budgets per model: src/common/models.ts).
 */
export function inheritedSettingsRefusal(settings: ModelSettings, model: string): string | undefined {
  if (model === settings.model) return undefined;
  const facts = modelFacts(model);
  if (settings.effort && !facts.effortLevels.includes(settings.effort)) {
    const levels = facts.effortLevels.length > 0 ? `it takes ${facts.effortLevels.join(', ')}` : 'it takes no effort setting';
    return `A fork on ${model} would inherit the chat's effort "${settings.effort}" (fork.effort / --effort), which ${model} does not take: ${levels}. Fork on the chat's model (${settings.model}), or start a chat on ${model} with an effort it takes.`;
  }
  if (settings.thinkingBudget && !facts.acceptsBudgetTokens) {
    return `A fork on ${model} would inherit the chat's thinking budget (${settings.thinkingBudget} tokens), and ${model} takes no budget: it thinks adaptively. Fork on the chat's model (${settings.model}), or start a chat on ${model} without a budget.`;
  }
  return undefined;
}
