// Stand-in for the one model table (src/common/models.ts, written on another branch): the same
// `modelFacts(id)` interface, with only the facts the thinking and request rules read. Deleted when that
// table lands. Facts from the model pages read 2026-12-01: platform.claude.com/docs/en/models/sonnet-5-5/
// whats-new-sonnet-5-5, /models/haiku-5-5/overview and /migration-guide, /build-with-claude/effort.
export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORT_LEVELS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export interface ModelFacts {
  id: string;
  known: boolean;
  note?: string;
  thinking: 'adaptive-only' | 'adaptive-default' | 'manual';
  acceptsBudgetTokens: boolean;
  acceptsDisabledThinking: boolean;
  acceptsSampling: boolean;
  acceptsForcedToolChoice: boolean;
  acceptsPrefill: boolean;
  effortLevels: readonly Effort[];
  defaultEffort?: Effort;
  prefixCheck: boolean;
  readsThinkingFrom: string[];
  minCacheableTokens: number;
  contextWindow: number;
  maxOutputTokens: number;
  midConversationToolChanges: boolean;
}

const FIVE_FIVE = {
  known: true, thinking: 'adaptive-default', acceptsBudgetTokens: false, acceptsDisabledThinking: false, acceptsSampling: false,
  acceptsPrefill: false, effortLevels: EFFORT_LEVELS, prefixCheck: true, minCacheableTokens: 512, contextWindow: 1_000_000,
  maxOutputTokens: 128_000, midConversationToolChanges: true,
} as const;

const TABLE: Record<string, Omit<ModelFacts, 'id'>> = {
  'claude-sonnet-5-5': { ...FIVE_FIVE, acceptsForcedToolChoice: false, defaultEffort: 'high', readsThinkingFrom: ['claude-sonnet-5', 'claude-opus-4-8', 'claude-haiku-4-5'] },
  'claude-opus-5-5': { ...FIVE_FIVE, thinking: 'adaptive-only', acceptsForcedToolChoice: false, defaultEffort: 'medium', readsThinkingFrom: ['claude-opus-5', 'claude-sonnet-5-5', 'claude-sonnet-5', 'claude-opus-4-8', 'claude-haiku-4-5'] },
  'claude-haiku-5-5': { ...FIVE_FIVE, acceptsForcedToolChoice: true, defaultEffort: 'medium', readsThinkingFrom: [] },
};

export function modelFacts(id: string): ModelFacts {
  const known = TABLE[id];
  if (known) return { id, ...known };
  return {
    id, known: false, note: `No facts recorded for ${id}: treated as a model with manual thinking budgets.`,
    thinking: 'manual', acceptsBudgetTokens: true, acceptsDisabledThinking: true, acceptsSampling: true, acceptsForcedToolChoice: true,
    acceptsPrefill: true, effortLevels: [], prefixCheck: false, readsThinkingFrom: [], minCacheableTokens: 1024, contextWindow: 200_000,
    maxOutputTokens: 64_000, midConversationToolChanges: false,
  };
}
