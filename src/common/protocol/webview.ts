// The Forks panel's postMessage channel (docs/design.md §2): the host ⇄ webview messages, named scope/verb like the
// runtime protocol and typed by the same descriptors. The webview owns no state: the host sends a snapshot
// on `panel/ready` and updates after it; the webview sends intents (requests with ids, answered once).
import type { HunkConflictInfo, TournamentCompareResult } from './forks';
import type { TurnFile } from './checkpoints';
import type { ToolCategory } from '../approval';
import type { ForkSummary, Isolation } from '../forks';
import type { EntryKind } from '../transcript';
import { notification, request } from './descriptor';
import type { CacheStep } from '../cacheExplorer';
import { modelIdProblem } from '../modelChoice';
import { MAX_ATTEMPTS } from '../tournament';
import type { ModelOption } from '../modelChoice';
import type { McpServerStatus } from './mcp';
import type { NotificationDescriptor, RequestDescriptor } from './descriptor';

// ── Views: what the webview renders ─────────────────────────────────────────────────────────────────

/** One line of a fork's live output; `seq` orders items and names them in later updates. */
export type OutputItem =
  /** console: a command's own output (a worktree's setup), shown as terminal text. */
  | { seq: number; kind: 'text'; text: string; console?: boolean }
  | { seq: number; kind: 'tool'; callId: string; name: string; description: string; status: 'running' | 'ok' | 'error'; summary?: string }
  | { seq: number; kind: 'note'; tone: 'info' | 'warning' | 'error'; text: string };

/** Incremental output: append to a text item (created when new), add or replace an item, drop old items. */
export type OutputOp =
  | { op: 'append'; seq: number; text: string }
  | { op: 'put'; item: OutputItem }
  | { op: 'trim'; beforeSeq: number };

export interface ForkRowView {
  fork: ForkSummary;
  /** The report as HTML from the host's markdown renderer (raw HTML off, links inert); nothing else is HTML. */
  reportHtml?: string;
}

export interface PendingApprovalView {
  callId: string;
  forkId: string;
  toolName: string;
  category: ToolCategory;
  description: string;
  /** `key: value` lines of the tool input, already shortened. */
  detail: string;
}

export interface ToolCallView { name: string; input: string; result?: string; isError?: boolean }

/** One message of the current chat's transcript; `id` is the entry a fork from here ends at. */
export interface MessageView {
  id: string;
  /** Every entry the message shows (a fork's parentEntryId may name any of them). */
  entryIds: string[];
  kind: EntryKind;
  role: 'user' | 'assistant' | 'note';
  /** Plain text (prompts, notes). */
  text?: string;
  /** Answers, as HTML from the host's markdown renderer. */
  html?: string;
  tools: ToolCallView[];
  /** On the message that ends a checkpointed turn: the files the turn changed (from its checkpoints). */
  turnFiles?: TurnFile[];
}

export interface SessionView {
  sessionId: string;
  title: string;
  /** Real user turns a numeric window can reach: those after the latest compaction summary. */
  realTurns: number;
  messages: MessageView[];
  /** The chat's own spending line: its cost, or why there is none. */
  costText?: string;
  /** The cache explorer of the chat's requests. */
  cacheSteps?: CacheStep[];
  /** The chat's model: a new fork's default (the one that shares its prompt cache). */
  model?: string;
  /** Damaged lines of the chat's transcript found when it was loaded, each with what was done (session/transcript). */
  damage?: string[];
}

export interface PanelSnapshot {
  forks: ForkRowView[];
  /** Live output per fork id (only forks that produced some while this window was open). */
  outputs: Record<string, OutputItem[]>;
  approvals: PendingApprovalView[];
  session?: SessionView;
  defaults: { forkTurns: string; isolation: Isolation };
  /** Worktree forks can be reviewed, applied, kept and discarded (the runtime's fork/review|apply|keep|discard). */
  worktreeActions: boolean;
  /** What the store takes on disk (sessions and shared history), when known. */
  store?: StoreSizeView;
  /** Models a new fork may use (the Chat view's list: model/list, else fork.models). */
  models: ModelOption[];
  /** The MCP servers whose tools the current chat has, and their state now. */
  mcpServers: McpServerStatus[];
}

export interface StoreSizeView { bytes: number; sessions: number; segments: number }

// ── Host → webview ──────────────────────────────────────────────────────────────────────────────────

export const panelSnapshot = notification<PanelSnapshot>('panel/snapshot');
export const forksState = notification<ForkRowView>('forks/state');
export const storeState = notification<StoreSizeView>('store/state');
export const forkOutput = notification<{ forkId: string; ops: OutputOp[] }>('fork/output');
export const approvalsState = notification<{ approvals: PendingApprovalView[] }>('approvals/state');
export const sessionState = notification<{ session?: SessionView }>('session/state');
/** The current chat's MCP servers, whenever one starts, fails, stops or comes back (the runtime's mcp/state). */
export const mcpServersState = notification<{ servers: McpServerStatus[] }>('mcpServers/state');
export const modelsState = notification<{ models: ModelOption[] }>('models/state');
/** Expand and scroll to a fork (one just started from the palette or a message). */
export const forkReveal = notification<{ forkId: string }>('fork/reveal');

// ── Webview → host ──────────────────────────────────────────────────────────────────────────────────
// Names of their own (`panel/…`), not the runtime's `fork/start`, `fork/send`, … : these carry the panel's
// shapes (a form's strings, no session id), and the host turns each into the runtime request it means.

export const panelReady = notification<Record<string, never>>('panel/ready');
/** The form's turn count (null while invalid) and isolation whenever they change: the context menu's Fork from here uses them. */
export const pickerChanged = notification<{ forkTurns: string | null; isolation: Isolation }>('picker/changed');

/** `model`: another model than the chat's (the fork starts with a cold cache); absent: the chat's. */
export interface PanelForkStart {
  directive: string; forkTurns: string; isolation: Isolation; model?: string;
  /** 2–8: a tournament (worktree attempts); `models`: one per attempt, cycled. */
  attempts?: number;
  models?: string[];
}
export const panelForkStart = request<PanelForkStart, { forkId: string }>('panel/forkStart');
/** Fork from a transcript message: the host asks for the directive. */
export const panelForkFromMessage = request<{ messageId: string; forkTurns: string }, { forkId?: string }>('panel/forkFromMessage');
export const panelForkCancel = request<{ forkId: string }, { cancelled: boolean }>('panel/forkCancel');
export const panelForkSend = request<{ forkId: string; message: string }, Record<string, never>>('panel/forkSend');
/** Continues a fork paused at its budget with a new budget (dollars "0.50" or tokens "40000tokens"). */
export const panelForkContinue = request<{ forkId: string; budget: string }, Record<string, never>>('panel/forkContinue');
export const approvalAnswer = request<{ callId: string; approved: boolean }, Record<string, never>>('approval/answer');
/** A tournament's attempts side by side (the runtime's tournament/compare, passed through). */
export const panelTournamentCompare = request<{ groupId: string }, TournamentCompareResult>('tournament/compare');
/** The changes of attempt b against attempt a. */
export const panelTournamentDiff = request<{ groupId: string; a: string; b: string }, { patch: string }>('tournament/diff');
/**
 * Applies one attempt (`forkId`) to the main working tree, or the hunks ticked in the Compare view (`hunks`:
 * per attempt's fork id, its hunk numbers as tournament/compare lists them); `discardRest`: then removes
 * every attempt's worktree. Chosen hunks that overlap come back in `hunkConflicts` and nothing is written.
 */
export interface PanelTournamentApply { groupId: string; forkId?: string; hunks?: { attempt: string; hunks: number[] }[]; discardRest?: boolean }
export interface PanelTournamentApplied { message: string; applied: string[]; hunkConflicts: HunkConflictInfo[]; conflicts: string[] }
export const panelTournamentApply = request<PanelTournamentApply, PanelTournamentApplied>('tournament/apply');
export type ForkAction = 'transcript' | 'root' | 'review' | 'apply' | 'keep' | 'discard';
export const panelForkAction = request<{ forkId: string; action: ForkAction }, Record<string, never>>('panel/forkAction');
/** "Diff since here" on a turn's message: the host opens its start checkpoint against the files now. */
export const panelDiffSince = request<{ messageId: string }, { files: number }>('panel/diffSince');
/** A link in model output was clicked: the host asks before opening anything. */
export const openLink = request<{ href: string }, Record<string, never>>('open/link');

// ── The wire ───────────────────────────────────────────────────────────────────────────────────────

export type WireMessage =
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'request'; id: number; method: string; params: unknown }
  | { kind: 'response'; id: number; result?: unknown; error?: string };

type Check = (params: Record<string, unknown>) => string | undefined;
const str = (key: string, nonEmpty = false): Check => p =>
  typeof p[key] === 'string' && (!nonEmpty || (p[key] as string).trim() !== '') ? undefined : `${key} must be a ${nonEmpty ? 'non-empty ' : ''}string`;
const oneOf = (key: string, values: readonly string[]): Check => p => (values.includes(p[key] as string) ? undefined : `${key} must be one of ${values.join(', ')}`);
const bool = (key: string): Check => p => (typeof p[key] === 'boolean' ? undefined : `${key} must be a boolean`);
const optionalModel = (key: string): Check => p => (p[key] === undefined ? undefined : modelIdProblem(p[key]));
const optionalAttempts = (key: string): Check => p =>
  p[key] === undefined || (Number.isInteger(p[key]) && (p[key] as number) >= 1 && (p[key] as number) <= MAX_ATTEMPTS) ? undefined : `${key} must be a whole number from 1 to ${MAX_ATTEMPTS}`;
const optionalModels = (key: string): Check => p => {
  if (p[key] === undefined) return undefined;
  if (!Array.isArray(p[key]) || (p[key] as unknown[]).length > MAX_ATTEMPTS) return `${key} must be a list of at most ${MAX_ATTEMPTS} model ids`;
  return (p[key] as unknown[]).map(m => modelIdProblem(m)).find(Boolean);
};
const optionalBool = (key: string): Check => p => (p[key] === undefined || typeof p[key] === 'boolean' ? undefined : `${key} must be a boolean`);
/** One attempt whole (`forkId`) or chosen hunks: a list of { attempt: fork id, hunks: numbers ≥ 1 }, one per attempt at most. */
const attemptOrHunks: Check = p => {
  const hasFork = p.forkId !== undefined;
  if (hasFork === (p.hunks !== undefined)) return 'give either forkId or hunks';
  if (hasFork) return str('forkId', true)(p);
  const list = p.hunks;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ATTEMPTS) return `hunks must be a list of 1 to ${MAX_ATTEMPTS} choices`;
  for (const choice of list as unknown[]) {
    if (!isRecord(choice) || typeof choice.attempt !== 'string' || choice.attempt.trim() === '') return 'each choice of hunks needs an attempt (a fork id)';
    const numbers = choice.hunks;
    if (!Array.isArray(numbers) || numbers.length === 0 || numbers.length > MAX_CHOSEN_HUNKS || !numbers.every(n => Number.isSafeInteger(n) && (n as number) >= 1)) {
      return `each choice of hunks needs 1 to ${MAX_CHOSEN_HUNKS} hunk numbers (whole numbers from 1)`;
    }
  }
  if (new Set((list as { attempt: string }[]).map(c => c.attempt)).size !== list.length) return 'hunks names an attempt twice';
  return undefined;
};
/** More than anyone ticks by hand; a bound so a bad message cannot make the runtime parse without end. */
const MAX_CHOSEN_HUNKS = 1000;
const strOrNull = (key: string): Check => p => (p[key] === null || typeof p[key] === 'string' ? undefined : `${key} must be a string or null`);

/** What the host accepts from the webview: method → the checks its params must pass. */
const TO_HOST: Record<string, { kind: 'request' | 'notification'; checks: Check[] }> = {
  [panelReady.method]: { kind: 'notification', checks: [] },
  [pickerChanged.method]: { kind: 'notification', checks: [strOrNull('forkTurns'), oneOf('isolation', ['shared', 'worktree'])] },
  [panelForkStart.method]: {
    kind: 'request', checks: [str('directive', true), str('forkTurns'), oneOf('isolation', ['shared', 'worktree']), optionalModel('model'), optionalAttempts('attempts'), optionalModels('models')],
  },
  [panelTournamentCompare.method]: { kind: 'request', checks: [str('groupId', true)] },
  [panelTournamentDiff.method]: { kind: 'request', checks: [str('groupId', true), str('a', true), str('b', true)] },
  [panelTournamentApply.method]: { kind: 'request', checks: [str('groupId', true), attemptOrHunks, optionalBool('discardRest')] },
  [panelForkFromMessage.method]: { kind: 'request', checks: [str('messageId', true), str('forkTurns')] },
  [panelForkCancel.method]: { kind: 'request', checks: [str('forkId', true)] },
  [panelForkSend.method]: { kind: 'request', checks: [str('forkId', true), str('message', true)] },
  [panelForkContinue.method]: { kind: 'request', checks: [str('forkId', true), str('budget', true)] },
  [approvalAnswer.method]: { kind: 'request', checks: [str('callId', true), bool('approved')] },
  [panelForkAction.method]: { kind: 'request', checks: [str('forkId', true), oneOf('action', ['transcript', 'root', 'review', 'apply', 'keep', 'discard'])] },
  [openLink.method]: { kind: 'request', checks: [str('href', true)] },
  [panelDiffSince.method]: { kind: 'request', checks: [str('messageId', true)] },
};

export type ParsedToHost =
  | { ok: true; message: Extract<WireMessage, { kind: 'request' | 'notification' }> & { params: Record<string, unknown> } }
  | { ok: false; error: string; id?: number };

/** Validates a message from the webview: a known method, its kind, an id for requests, params of the right shape. */
export function parseToHost(raw: unknown): ParsedToHost {
  if (!isRecord(raw)) return { ok: false, error: 'a message must be an object' };
  const id = Number.isSafeInteger(raw.id) ? (raw.id as number) : undefined;
  const method = raw.method;
  if (typeof method !== 'string') return { ok: false, error: 'method must be a string', id };
  const spec = Object.prototype.hasOwnProperty.call(TO_HOST, method) ? TO_HOST[method] : undefined;
  if (!spec) return { ok: false, error: `unknown method ${JSON.stringify(method)}`, id };
  if (raw.kind !== spec.kind) return { ok: false, error: `${method} must be sent as a ${spec.kind}`, id };
  if (spec.kind === 'request' && id === undefined) return { ok: false, error: `${method} needs an integer id` };
  const params = raw.params ?? {};
  if (!isRecord(params)) return { ok: false, error: `${method}: params must be an object`, id };
  for (const check of spec.checks) {
    const problem = check(params);
    if (problem) return { ok: false, error: `${method}: ${problem}`, id };
  }
  const message = spec.kind === 'request' ? { kind: 'request' as const, id: id as number, method, params } : { kind: 'notification' as const, method, params };
  return { ok: true, message };
}

/** The envelope alone, for messages from the host (the webview trusts their payloads: the host built them). */
export function isWireMessage(raw: unknown): raw is WireMessage {
  if (!isRecord(raw)) return false;
  if (raw.kind === 'response') return Number.isSafeInteger(raw.id);
  if (raw.kind === 'request') return Number.isSafeInteger(raw.id) && typeof raw.method === 'string';
  return raw.kind === 'notification' && typeof raw.method === 'string';
}

export function notificationMessage<P>(descriptor: NotificationDescriptor<P>, params: P): WireMessage {
  return { kind: 'notification', method: descriptor.method, params };
}

export function requestMessage<P, R>(descriptor: RequestDescriptor<P, R>, id: number, params: P): WireMessage {
  return { kind: 'request', id, method: descriptor.method, params };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
