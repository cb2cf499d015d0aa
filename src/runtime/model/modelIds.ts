// Sessions record Anthropic model ids; Bedrock and Vertex name the same models differently. This table maps
// the ids we could check against the providers' own pages; any other id (an inference profile such as
// `us.anthropic.…`, a cloud id typed as is, a model newer than the table) is sent unchanged.
//
// Sources, seen 2026-12-01:
// [B] https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock (and its -legacy twin):
//     "Base Bedrock model ID" table (Opus 4.6, Sonnet 4.6, Sonnet 4.5, Sonnet 4, Sonnet 3.7, Opus 4.5, Opus 4.1).
// [O] https://platform.claude.com/docs/claude/docs/models-overview: "AWS Bedrock ID" / "GCP Vertex AI ID" rows
//     (Opus 4.7, Sonnet 4.6, Haiku 4.5).
// [G] https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude: Vertex model
//     names (Opus 4.5 in its current zh-cn/es/de versions); Sonnet 5.5:
//     https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/partner-models/claude/sonnet-5-5.md.txt
// [M55] read 2026-12-01: https://platform.claude.com/docs/en/models/haiku-5-5/overview ("Bedrock:
//     anthropic.claude-haiku-5-5") and …/models/sonnet-5-5/overview (anthropic.claude-sonnet-5-5); Google Cloud
//     uses the bare API ids for both.
// Not found on those pages, so not mapped for Bedrock (pass the Bedrock id itself as the model): Opus 4,
// Haiku 3.5, Haiku 3, Opus 3, Sonnet 3.5, and the other 5.x models (Opus 5.5's anthropic.claude-opus-5-5 was
// seen only second-hand). Vertex's ids for Opus 4.6 and the 5.5 models equal the Anthropic ones.
import type { ProviderAccess } from './providers';

interface CloudIds {
  /** The Anthropic API's alias, dated id, `-latest` form, and the price table's family key. */
  anthropic: string[];
  bedrock?: string;
  vertex?: string;
}

const MODELS: CloudIds[] = [
  { anthropic: ['claude-sonnet-5-5'], bedrock: 'anthropic.claude-sonnet-5-5' }, // [M55]
  { anthropic: ['claude-haiku-5-5'], bedrock: 'anthropic.claude-haiku-5-5' }, // [M55]
  { anthropic: ['claude-opus-4-7'], bedrock: 'anthropic.claude-opus-4-7', vertex: 'claude-opus-4-7' }, // [O] (no ARN-versioned id: [B])
  { anthropic: ['claude-opus-4-6'], bedrock: 'anthropic.claude-opus-4-6-v1' }, // [B]
  { anthropic: ['claude-sonnet-4-6'], bedrock: 'anthropic.claude-sonnet-4-6', vertex: 'claude-sonnet-4-6' }, // [B] [O]
  { anthropic: ['claude-opus-4-5', 'claude-opus-4-5-20251101'], bedrock: 'anthropic.claude-opus-4-5-20251101-v1:0', vertex: 'claude-opus-4-5@20251101' }, // [B] [G]
  { anthropic: ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'], bedrock: 'anthropic.claude-sonnet-4-5-20250929-v1:0', vertex: 'claude-sonnet-4-5@20250929' }, // [B] [G]
  { anthropic: ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'], bedrock: 'anthropic.claude-haiku-4-5-20251001-v1:0', vertex: 'claude-haiku-4-5@20251001' }, // [O] [G]
  { anthropic: ['claude-opus-4-1', 'claude-opus-4-1-20250805'], bedrock: 'anthropic.claude-opus-4-1-20250805-v1:0', vertex: 'claude-opus-4-1@20250805' }, // [B] [G]
  { anthropic: ['claude-opus-4', 'claude-opus-4-0', 'claude-opus-4-20250514'], vertex: 'claude-opus-4@20250514' }, // [G]
  { anthropic: ['claude-sonnet-4', 'claude-sonnet-4-0', 'claude-sonnet-4-20250514'], bedrock: 'anthropic.claude-sonnet-4-20250514-v1:0', vertex: 'claude-sonnet-4@20250514' }, // [B] [G]
  { anthropic: ['claude-3-7-sonnet', 'claude-3-7-sonnet-latest', 'claude-3-7-sonnet-20250219'], bedrock: 'anthropic.claude-3-7-sonnet-20250219-v1:0', vertex: 'claude-3-7-sonnet@20250219' }, // [B] [G]
  { anthropic: ['claude-3-5-sonnet-20241022'], vertex: 'claude-3-5-sonnet-v2@20241022' }, // [G]
  { anthropic: ['claude-3-5-sonnet-20240620'], vertex: 'claude-3-5-sonnet@20240620' }, // [G]
  { anthropic: ['claude-3-5-haiku', 'claude-3-5-haiku-latest', 'claude-3-5-haiku-20241022'], vertex: 'claude-3-5-haiku@20241022' }, // [G]
  { anthropic: ['claude-3-opus', 'claude-3-opus-latest', 'claude-3-opus-20240229'], vertex: 'claude-3-opus@20240229' }, // [G]
  { anthropic: ['claude-3-haiku', 'claude-3-haiku-20240307'], vertex: 'claude-3-haiku@20240307' }, // [G]
];

const BY_ID = new Map(MODELS.flatMap(model => model.anthropic.map(id => [id, model] as const)));

/** The id to send: the provider's name for a known Anthropic id, else the id unchanged. */
export function providerModelId(provider: ProviderAccess | undefined, model: string): string {
  if (!provider) return model;
  return BY_ID.get(model)?.[provider.name] ?? model;
}
