// What the fake's GET /v1/models lists when a test names no list: the models the API offered on
// 2026-12-01, restated from the docs (read that day): the current lineup of
// https://platform.claude.com/docs/en/models/haiku-5-5/overview ("How it compares": Fable 5.1, Opus 5.5,
// Sonnet 5.5, Haiku 5.5 — 1M context, 128K output) and the earlier models still served beside them
// (https://platform.claude.com/docs/en/about-claude/pricing); from 2026-12-02 also Claude Fable 5.2
// (https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2: 1M context, 128k output; released
// 2026-11-09 per the release notes as third-party notes quote them). Retired models (Sonnet 4.5 on 2026-11-30,
// sonnet-4-5/overview) are not listed. Release dates from the models' own pages where stated (Fable 5 "Released
// June 9, 2026", Sonnet 5 "Released June 30, 2026"); the Unix epoch where not, as the Models API does for an
// unknown date.
export interface ListedFakeModel { id: string; display_name: string; created_at?: string; max_input_tokens?: number | null; max_tokens?: number | null }

const M = 1_000_000;
const EPOCH = '1970-01-01T00:00:00Z';

export const CURRENT_MODELS: readonly ListedFakeModel[] = [
  { id: 'claude-fable-5-2', display_name: 'Claude Fable 5.2', created_at: '2026-11-09T00:00:00Z', max_input_tokens: M, max_tokens: 128_000 },
  { id: 'claude-haiku-5-5', display_name: 'Claude Haiku 5.5', created_at: '2026-10-07T00:00:00Z', max_input_tokens: M, max_tokens: 128_000 },
  { id: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5', created_at: '2026-09-28T00:00:00Z', max_input_tokens: M, max_tokens: 128_000 },
  { id: 'claude-opus-5-5', display_name: 'Claude Opus 5.5', created_at: '2026-09-22T00:00:00Z', max_input_tokens: M, max_tokens: 128_000 },
  { id: 'claude-fable-5-1', display_name: 'Claude Fable 5.1', created_at: EPOCH, max_input_tokens: M, max_tokens: 128_000 },
  { id: 'claude-opus-5', display_name: 'Claude Opus 5', created_at: EPOCH },
  { id: 'claude-sonnet-5', display_name: 'Claude Sonnet 5', created_at: '2026-06-30T00:00:00Z' },
  { id: 'claude-fable-5', display_name: 'Claude Fable 5', created_at: '2026-06-09T00:00:00Z' },
  { id: 'claude-opus-4-8', display_name: 'Claude Opus 4.8', created_at: EPOCH },
  { id: 'claude-opus-4-7', display_name: 'Claude Opus 4.7', created_at: EPOCH },
  { id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', created_at: EPOCH },
  { id: 'claude-opus-4-6', display_name: 'Claude Opus 4.6', created_at: EPOCH },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
];

// Models retired on the Claude API by 2026-12-02, restated on their own (not from src/common/models.ts):
// https://platform.claude.com/docs/en/about-claude/model-deprecations (read 2026-12-02): "Retired: The model
// is no longer available for use. Requests to retired models will fail", the dates applying to Anthropic-
// operated platforms (Bedrock and Google Cloud set their own). Sonnet 4.5 "retires on November 30, 2026"
// (models/sonnet-4-5/overview); Opus 4.1, Opus 4, Sonnet 4, Sonnet 3.7 and Sonnet 3.5 earlier (the pricing
// page marks them retired). How a request fails is not on that page: the errors page
// (https://platform.claude.com/docs/en/api/errors, read 2026-12-02) has 404 not_found_error for what "was not
// found", and a retired model's request was answered `404 {"type":"not_found_error","message":"model:
// claude-sonnet-4-20250514"}` (reported 2026-08-14, github.com/vicharanashala/vibe/issues/1259). The fake
// answers that, on its Claude API route only.
const RETIRED = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4', 'claude-3-7-sonnet', 'claude-3-5-sonnet'];

/** Whether `model` (a Claude API id, dated or not) names a retired model. */
export function isRetiredModel(model: string): boolean {
  const bare = model.replace(/-(?:\d{8}|latest)$/, '').replace(/-0$/, '');
  return RETIRED.includes(bare);
}
