// What each Claude model accepts and offers, as the platform docs describe it: one table that the engine,
// budgets, cost lines and context accounting read (the fake in test/fakes restates the docs on its own).
// Pure: no Node, no vscode.
//
// Sources, read 2026-12-01 and again 2026-12-02 (copies in the search index; the pages carry no "last updated"
// date, so each is dated by the day it was read or, for a quoted copy, the day its copier states):
// [H55]  https://platform.claude.com/docs/en/models/haiku-5-5/overview ("Released October 7, 2026"): comparison
//        table — context, max output, thinking, default effort of Fable 5.1 / Opus 5.5 / Sonnet 5.5 / Haiku 5.5;
//        512-token cache minimum on Haiku 5.5; Bedrock id anthropic.claude-haiku-5-5.
// [H55m] https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide: budgets 400, only temperature 1 or
//        top_p 0.99, prefill 400 even with thinking off, forced tool_choice accepted (answer starts with the tool
//        call, no thinking), prefix check runs.
// [S55]  https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 and …/sonnet-5-5/overview:
//        budgets 400, `disabled` 400 (use `between_tools`), forced tool_choice 400, 512-token cache minimum,
//        mid-conversation system messages and tool changes, prefix check, which models read its blocks.
// [S5]   https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview: adaptive on by default, manual budgets
//        400, non-default sampling parameters 400; 1,024-token cache minimum (whats-new-sonnet-5-5).
// [O5]   https://platform.claude.com/docs/about-claude/models/whats-new-opus-5 and …/zh-CN/models/opus-5/overview:
//        thinking on by default, can be turned off only at effort high or lower; mid-conversation tool changes.
// [PT]   https://platform.claude.com/docs/en/build-with-claude/preserved-thinking (copy of 2026-09-26) and
//        …/preserved-thinking/prefix-checks (frontmatter supportedModels): which models run the prefix check
//        and which read whose thinking blocks.
// [MC]   https://platform.claude.com/docs/zh-CN/build-with-claude/mid-conversation-system-messages.md: models with
//        mid-conversation system messages: Fable 5.1, Mythos 5.1, Fable 5, Mythos 5, Opus 5.5, Opus 4.8, Opus 5,
//        Sonnet 5.5, Haiku 5.5 — not Sonnet 5.
// [PC]   https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations: today's copy
//        in the index shows only the page's top; its "Cache limitations" list was read in verbatim quotes dated
//        by their copiers (a test fixture "as of 2026-07-28", research notes of 2026-10-01 and 2026-10-08, all
//        in the search index's GitHub files): 512 for Fable 5.1, Mythos 5.1, Opus 5.5, Opus 5, Sonnet 5.5,
//        Fable 5, Mythos 5 and (2026-10-08) Haiku 5.5; 2,048 for Mythos Preview, Opus 4.7 and Haiku 3.5;
//        4,096 for Opus 4.6, Opus 4.5 and Haiku 4.5; 1,024 for Opus 4.8, Sonnet 5, Sonnet 4.6, Sonnet 4.5,
//        Opus 4.1, Opus 4 and Sonnet 4. The table followed third-party copies before 2026-12-02 (orq.ai:
//        Sonnet 4.6 2,048; litellm: Opus 4.7 4,096); the page's own list wins. Fable 5.2 / Mythos 5.2 appear in
//        no copy read: 512 assumed, like every other 5.x model but Sonnet 5.
// [F52]  https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2 (read 2026-12-02; release
//        2026-11-09 per the release notes as quoted by developersdigest.tech and docs.laozhang.ai): 1M context
//        (default and maximum), 128k output, adaptive thinking always on (effort sets its depth), the prefix
//        check on every account, only Fable 5.2 and Mythos 5.2 read Fable 5.2's thinking blocks.
// [LC]   Lifecycle, https://platform.claude.com/docs/en/about-claude/model-deprecations (today's copy shows only
//        its introduction) and the models' own pages: Sonnet 4.5 "retires on November 30, 2026"
//        (…/models/sonnet-4-5/overview in zh-CN / pt-BR / ja; @anthropic-ai/sdk's DEPRECATED_MODELS says the
//        same); Opus 4.1 and Opus 4 "retired, except on Bedrock and Google Cloud" / "except on Google Cloud"
//        (pricing page); Sonnet 4 "retired, except on Bedrock and Google Cloud" and Haiku 3.5 "retired, except
//        on Google Cloud" ([PC] quotes). Dates not on a page read: from dated third-party notes (release notes
//        as quoted by ottto-ai/ai-provider-watch: Sonnet 4 and Opus 4 on 2026-06-15; multidotdev/cli: Opus 4.1
//        on 2026-08-05; modelpin 0.5.7, deprecations page read 2026-11-26: Opus 4.5 deprecated, retiring
//        2027-01-22, tentative; thevibeworks/claude-code-docs#417: Sonnet 3.5 on 2025-10-28, Sonnet 3.7 on
//        2026-02-19).
// [OV]   4.x and older: https://platform.claude.com/docs/es/models/overview (older lineup) and the models
//        overview the repository already cited (context windows, max output, extended thinking).
//
// Disagreements seen:
// - Mythos 5.1 prefix check: [PT] 2026-09-26 says it does not run; prefix-checks' supportedModels lists it.
//   The table says it runs (the newer page; and assuming a check costs nothing when requests are append-only).
// - Sonnet 5.5 cache-read price: its zh-CN overview still shows $0.20; whats-new and the pricing page show $0.10
//   from 2026-10-07 (pricing.ts keeps both, dated).

import { DEFAULT_MODEL } from './defaults';

export type ThinkingMode = 'adaptive-only' | 'adaptive-default' | 'manual';
export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ModelFacts {
  /** The id asked about, unchanged. */
  id: string;
  /** False: the table has no row for it; the other fields are conservative defaults and `note` says so. */
  known: boolean;
  note?: string;
  /**
   * adaptive-only: thinking is adaptive and always on; it cannot be turned off.
   * adaptive-default: adaptive thinking when asked for (or, where `thinkingWhenUnset` is 'adaptive', when
   *   `thinking` is left out); manual budgets per `acceptsBudgetTokens`.
   * manual: `thinking: {type: 'enabled', budget_tokens}`; off when left out.
   */
  thinking: ThinkingMode;
  /** What the model does when a request has no `thinking` field. */
  thinkingWhenUnset: 'adaptive' | 'off';
  acceptsBudgetTokens: boolean;
  acceptsDisabledThinking: boolean;
  /** temperature / top_p / top_k at values other than the defaults. */
  acceptsSampling: boolean;
  /** tool_choice `any` / `tool`. */
  acceptsForcedToolChoice: boolean;
  /** A last `assistant` message the model continues. */
  acceptsPrefill: boolean;
  /** `output_config.effort` levels; empty: the field is not accepted. */
  effortLevels: readonly Effort[];
  /** The API's default level when the request sets none. */
  defaultEffort?: Effort;
  /** The API checks that nothing before a replayed thinking block changed (preserved-thinking prefix check). */
  prefixCheck: boolean;
  /** Model ids (canonical) whose thinking blocks this model reads; others are dropped silently. */
  readsThinkingFrom: readonly string[];
  /** Shortest prefix a cache_control breakpoint caches; shorter ones are processed uncached, without error. */
  minCacheableTokens: number;
  contextWindow: number;
  maxOutputTokens: number;
  /** Tools can be added or removed by a `role: "system"` message mid-conversation, keeping the cached prefix. */
  midConversationToolChanges: boolean;
  /**
   * The UTC day Anthropic-operated platforms stop (or stopped) serving the model ([LC]); requests after it
   * fail there. Bedrock and Google Cloud set their own dates. Absent: no retirement announced on a page read.
   */
  retiresOn?: string;
}

type Row = Omit<ModelFacts, 'id' | 'known' | 'note'> & { note?: string };

const ALL_EFFORT: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
const K = 1000;
const M = 1_000_000;

// Thinking-block readers ([PT], [S55]). "Earlier Claude models" are every model listed below these.
const OLDER_THAN_5 = ['claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-5', 'claude-sonnet-4-5',
  'claude-haiku-4-5', 'claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4', 'claude-3-7-sonnet', 'claude-3-5-sonnet', 'claude-3-5-haiku',
  'claude-3-opus', 'claude-3-haiku'];
const OPUS_5_AND_EARLIER = ['claude-opus-5', 'claude-sonnet-5', 'claude-fable-5', 'claude-mythos-5', ...OLDER_THAN_5];

/** A 5.x model: adaptive by default, no budgets, no sampling parameters, no prefill. */
function fiveX(row: Partial<Row> & Pick<Row, 'readsThinkingFrom' | 'minCacheableTokens'>): Row {
  return {
    thinking: 'adaptive-default', thinkingWhenUnset: 'adaptive', acceptsBudgetTokens: false, acceptsDisabledThinking: false,
    acceptsSampling: false, acceptsForcedToolChoice: false, acceptsPrefill: false, effortLevels: ALL_EFFORT, defaultEffort: 'high',
    prefixCheck: false, contextWindow: M, maxOutputTokens: 128 * K, midConversationToolChanges: false, ...row,
  };
}

/** A 4.x-or-older model with manual extended thinking, sampling parameters and prefill. */
function manual(row: Partial<Row> & Pick<Row, 'contextWindow' | 'maxOutputTokens' | 'minCacheableTokens'>, family: string): Row {
  return {
    thinking: 'manual', thinkingWhenUnset: 'off', acceptsBudgetTokens: true, acceptsDisabledThinking: true, acceptsSampling: true,
    // Forced tool choice and prefill are refused only while thinking is on; the engine sends neither then.
    acceptsForcedToolChoice: true, acceptsPrefill: true, effortLevels: [], prefixCheck: false,
    readsThinkingFrom: [family], midConversationToolChanges: false, ...row,
  };
}

const TABLE: Readonly<Record<string, Row>> = {
  // Fable 5.2 and Mythos 5.2 [F52]: 1M / 128k, adaptive always on, prefix check on every account; only they
  // read Fable 5.2's blocks. Default effort high (laozhang's note; [F52] names the effort parameter only). Not
  // on the page read, so Fable 5.1's: forced tool choice refused, whose blocks they read; mid-conversation tool
  // changes not assumed; cache minimum 512 [PC].
  'claude-fable-5-2': fiveX({ thinking: 'adaptive-only', prefixCheck: true, minCacheableTokens: 512,
    readsThinkingFrom: ['claude-fable-5-2', 'claude-mythos-5-2', 'claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', ...OPUS_5_AND_EARLIER],
    note: 'Fable 5.2: its what\'s-new page was read; forced tool choice, whose thinking it reads and its cache minimum are Fable 5.1\'s.' }),
  'claude-mythos-5-2': fiveX({ thinking: 'adaptive-only', prefixCheck: true, minCacheableTokens: 512,
    readsThinkingFrom: ['claude-fable-5-2', 'claude-mythos-5-2', 'claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', ...OPUS_5_AND_EARLIER],
    note: 'Mythos 5.2: "same capabilities as Claude Fable 5.2" (its what\'s-new page); the rest is Fable 5.2\'s.' }),
  // [H55] "Adaptive (always on)", default effort high; forced tool use 400 (fable-5-1 overview); [PT] runs the
  // prefix check; reads Mythos 5.1's, Opus 5.5's and every earlier model's blocks. Cache minimum 512 [PC].
  'claude-fable-5-1': fiveX({ thinking: 'adaptive-only', prefixCheck: true, midConversationToolChanges: true, minCacheableTokens: 512,
    readsThinkingFrom: ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', ...OPUS_5_AND_EARLIER] }),
  // Limited availability; same facts as Fable 5.1 [PT] (prefix check: see the disagreement above).
  'claude-mythos-5-1': fiveX({ thinking: 'adaptive-only', prefixCheck: true, midConversationToolChanges: true, minCacheableTokens: 512,
    readsThinkingFrom: ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', ...OPUS_5_AND_EARLIER] }),
  // Fable 5 / Mythos 5: thinking always on, `disabled` 400 — third-party copies only (tokenmix on dev.to, launch
  // docs read 2026-06-10; the thinking-troubleshooting table as quoted in notes of 2026-10: "Opus 5.5 and Fable
  // are 'Always on'").
  'claude-fable-5': fiveX({ thinking: 'adaptive-only', midConversationToolChanges: true, minCacheableTokens: 512, readsThinkingFrom: OPUS_5_AND_EARLIER,
    note: 'Fable 5: only its price, cache minimum and mid-conversation support were read on its own pages; thinking always on from third-party copies.' }),
  'claude-mythos-5': fiveX({ thinking: 'adaptive-only', midConversationToolChanges: true, minCacheableTokens: 512, readsThinkingFrom: OPUS_5_AND_EARLIER,
    note: 'Mythos 5: only its cache minimum and mid-conversation support were read; the rest is Fable 5\'s.' }),
  // [H55] "Adaptive (always on)", default effort medium; [PT] prefix check; reads Opus 5 and earlier Opus/Sonnet/
  // Haiku blocks and Sonnet 5.5's on the Claude API and Google Cloud [S55]; not Fable/Mythos. `disabled` and
  // budgets 400 (…/models/opus-5-5/whats-new-opus-5-5, zh-TW copy read 2026-12-02). Cache minimum 512 [PC].
  'claude-opus-5-5': fiveX({ thinking: 'adaptive-only', defaultEffort: 'medium', prefixCheck: true, midConversationToolChanges: true,
    minCacheableTokens: 512, readsThinkingFrom: ['claude-opus-5-5', 'claude-sonnet-5-5', ...OPUS_5_AND_EARLIER.filter(id => !/fable|mythos/.test(id))] }),
  // [S55]: adaptive by default, `disabled` 400 (between_tools instead), forced tool_choice 400, 512 minimum;
  // reads Sonnet 5, Opus 4.8, Haiku 4.5 and earlier — not Opus 5, Opus 5.5, Fable or Mythos.
  'claude-sonnet-5-5': fiveX({ prefixCheck: true, midConversationToolChanges: true, minCacheableTokens: 512,
    readsThinkingFrom: ['claude-sonnet-5-5', 'claude-sonnet-5', ...OLDER_THAN_5] }),
  // [H55], [H55m]: adaptive by default, default effort medium, 512 minimum, forced tool_choice accepted, prefix
  // check. Whose blocks it reads is not stated: only its own. `disabled`: not stated, so not sent.
  'claude-haiku-5-5': fiveX({ defaultEffort: 'medium', acceptsForcedToolChoice: true, prefixCheck: true, midConversationToolChanges: true,
    minCacheableTokens: 512, readsThinkingFrom: ['claude-haiku-5-5'] }),
  // [O5]: adaptive by default, off only at effort high or lower; mid-conversation tool changes; 512 [PC].
  'claude-opus-5': fiveX({ acceptsDisabledThinking: true, midConversationToolChanges: true, minCacheableTokens: 512, readsThinkingFrom: OPUS_5_AND_EARLIER,
    note: 'Thinking can be turned off only at effort high or lower.' }),
  // [S5]: adaptive by default, budgets 400, sampling 400; no mid-conversation system messages [MC]; 1,024 [S55].
  'claude-sonnet-5': fiveX({ acceptsDisabledThinking: true, minCacheableTokens: 1024, readsThinkingFrom: ['claude-sonnet-5', ...OLDER_THAN_5] }),
  // Opus 4.7 / 4.8: adaptive thinking only ("thinking.type.enabled" is not supported — Agent SDK troubleshooting
  // page), off when unset; sampling parameters refused. Opus 4.8 in [MC]. Minimums [PC]: 4.8 1,024, 4.7 2,048.
  'claude-opus-4-8': fiveX({ thinkingWhenUnset: 'off', acceptsDisabledThinking: true, acceptsForcedToolChoice: true, acceptsPrefill: false,
    midConversationToolChanges: true, minCacheableTokens: 1024, readsThinkingFrom: OLDER_THAN_5 }),
  'claude-opus-4-7': fiveX({ thinkingWhenUnset: 'off', acceptsDisabledThinking: true, acceptsForcedToolChoice: true, acceptsPrefill: false,
    minCacheableTokens: 2048, readsThinkingFrom: OLDER_THAN_5.slice(1) }),
  // 4.6: adaptive thinking added, manual budgets still accepted (deprecated); 1M context at standard price [OV].
  // Prefill 400 on Opus 4.6 (its release notes, as the repository knew them; not re-read today).
  'claude-opus-4-6': manual({ thinking: 'adaptive-default', acceptsPrefill: false, effortLevels: ['low', 'medium', 'high', 'max'], defaultEffort: 'high', contextWindow: M,
    maxOutputTokens: 128 * K, minCacheableTokens: 4096 }, 'claude-opus-4-6'),
  // Sonnet 4.6: 1,024 [PC] (2,048 before 2026-12-02, from orq.ai's copy).
  'claude-sonnet-4-6': manual({ thinking: 'adaptive-default', effortLevels: ['low', 'medium', 'high', 'max'], defaultEffort: 'high', contextWindow: M,
    maxOutputTokens: 64 * K, minCacheableTokens: 1024 }, 'claude-sonnet-4-6'),
  // Retirements [LC]: Opus 4.5's date is a third-party reading (tentative); the rest are past.
  'claude-opus-4-5': manual({ effortLevels: ['low', 'medium', 'high'], defaultEffort: 'high', contextWindow: 200 * K, maxOutputTokens: 64 * K,
    minCacheableTokens: 4096, retiresOn: '2027-01-22' }, 'claude-opus-4-5'),
  'claude-sonnet-4-5': manual({ contextWindow: 200 * K, maxOutputTokens: 64 * K, minCacheableTokens: 1024, retiresOn: '2026-11-30' }, 'claude-sonnet-4-5'),
  'claude-haiku-4-5': manual({ contextWindow: 200 * K, maxOutputTokens: 64 * K, minCacheableTokens: 4096 }, 'claude-haiku-4-5'),
  'claude-opus-4-1': manual({ contextWindow: 200 * K, maxOutputTokens: 32 * K, minCacheableTokens: 1024, retiresOn: '2026-08-05' }, 'claude-opus-4-1'),
  'claude-opus-4': manual({ contextWindow: 200 * K, maxOutputTokens: 32 * K, minCacheableTokens: 1024, retiresOn: '2026-06-15' }, 'claude-opus-4'),
  'claude-sonnet-4': manual({ contextWindow: 200 * K, maxOutputTokens: 64 * K, minCacheableTokens: 1024, retiresOn: '2026-06-15' }, 'claude-sonnet-4'),
  'claude-3-7-sonnet': manual({ contextWindow: 200 * K, maxOutputTokens: 64 * K, minCacheableTokens: 1024, retiresOn: '2026-02-19' }, 'claude-3-7-sonnet'),
  'claude-3-5-sonnet': manual({ thinking: 'manual', acceptsBudgetTokens: false, contextWindow: 200 * K, maxOutputTokens: 8192, minCacheableTokens: 1024,
    retiresOn: '2025-10-28' }, 'claude-3-5-sonnet'),
  'claude-3-5-haiku': manual({ acceptsBudgetTokens: false, contextWindow: 200 * K, maxOutputTokens: 8192, minCacheableTokens: 2048 }, 'claude-3-5-haiku'),
  'claude-3-opus': manual({ acceptsBudgetTokens: false, contextWindow: 200 * K, maxOutputTokens: 4096, minCacheableTokens: 1024 }, 'claude-3-opus'),
  'claude-3-haiku': manual({ acceptsBudgetTokens: false, contextWindow: 200 * K, maxOutputTokens: 4096, minCacheableTokens: 2048 }, 'claude-3-haiku'),
};

/** Models whose `[1m]` variant (the 1M-context beta) widens the window; later ones have 1M as standard. */
const ONE_MILLION_BETA = new Set(['claude-sonnet-4', 'claude-sonnet-4-5']);

// Defaults for an id the table does not know: send nothing a model might refuse, assume the prefix check runs
// (so requests stay append-only) and the smaller window most models had.
const UNKNOWN: Row = {
  thinking: 'adaptive-default', thinkingWhenUnset: 'off', acceptsBudgetTokens: false, acceptsDisabledThinking: false, acceptsSampling: false,
  acceptsForcedToolChoice: false, acceptsPrefill: false, effortLevels: [], prefixCheck: true, readsThinkingFrom: [],
  minCacheableTokens: 1024, contextWindow: 200 * K, maxOutputTokens: 16 * K, midConversationToolChanges: false,
};

/** Every model the table knows, by canonical id. */
export const KNOWN_MODEL_IDS: readonly string[] = Object.keys(TABLE);

/** The day the table was last checked against the docs. */
export const MODEL_TABLE_DATE = '2026-12-02';

/**
 * The table's key for an id: strips a Bedrock region prefix (`us.`, `eu.`, `global.` …) and `anthropic.`, a
 * Bedrock `-v1:0` / `-v1` suffix, a Vertex `@YYYYMMDD`, a dated `-YYYYMMDD`, `-latest`, `-0` and `[1m]`.
 * Undefined when what remains is not in the table.
 */
export function canonicalModelId(id: string): string | undefined {
  const bare = baseId(id);
  return Object.prototype.hasOwnProperty.call(TABLE, bare) ? bare : undefined;
}

function baseId(id: string): string {
  let s = id.trim().toLowerCase().replace(/\[1m\]$/, '');
  s = s.replace(/^(?:[a-z]{2,6}\.)?anthropic\./, '');
  s = s.replace(/-v\d+(?::\d+)?$/, '').replace(/@\d{8}$/, '').replace(/-(?:\d{8}|latest)$/, '');
  s = s.replace(/^claude-3-5-sonnet-v2$/, 'claude-3-5-sonnet');
  if (/^claude-(?:opus|sonnet)-4-0$/.test(s)) s = s.slice(0, -2);
  return s;
}

/** The UTC day of `now` as YYYY-MM-DD, the form of `retiresOn`. */
export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The day `id` was retired on Anthropic-operated platforms ([LC]: "Retired: the model is no longer available
 * for use. Requests to retired models will fail"), when that day is `today` or earlier. Undefined for a model
 * still served, and on Bedrock and Google Cloud (`provider`), which set their own dates: not in the table.
 */
export function retiredOn(id: string, today: string, provider?: string): string | undefined {
  if (provider !== undefined && provider !== 'anthropic') return undefined;
  const day = modelFacts(id).retiresOn;
  return day !== undefined && day <= today ? day : undefined;
}

/**
 * `retiredOn` for the day it is now: the one place that reads the clock for the check every sender makes
 * before a request (the send path, fork/start and tournament/start, the CLI's --model, the model client's
 * 404 text), so all of them turn at the same UTC midnight. `now` is for tests.
 */
export function retiredToday(id: string, provider?: string, now: Date = new Date()): string | undefined {
  return retiredOn(id, utcDay(now), provider);
}

/** One sentence for every UI: which model, since when, and what to do instead. */
export function retiredModelText(id: string, day: string): string {
  return `${id} was retired on ${day}: the Claude API refuses requests to it (https://platform.claude.com/docs/en/about-claude/model-deprecations). Choose a current model, such as ${DEFAULT_MODEL}.`;
}

/** What the table says about `id`; an unknown id gets conservative defaults and a note, never an error. */
export function modelFacts(id: string): ModelFacts {
  const key = canonicalModelId(id);
  if (!key) {
    return { id, known: false, ...UNKNOWN, note: `${id || '(no model)'} is not in the model table (checked ${MODEL_TABLE_DATE}): budgets, effort, sampling parameters, forced tool choice and prefill are not sent, and cache and context figures are cautious guesses.` };
  }
  const row = TABLE[key];
  const wide = /\[1m\]$/i.test(id.trim()) && ONE_MILLION_BETA.has(key);
  return { id, known: true, ...row, ...(wide ? { contextWindow: M } : {}) };
}
