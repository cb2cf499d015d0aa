// The runtime protocol (docs/design.md §2): every message between the runtime process and its clients
// (extension host, CLI). Methods are named scope/verb; payloads are JSON only.
import type { ApprovalMode, ToolCategory } from '../approval';
import type { AgentEvent } from '../agentEvents';
import type { Entry, SessionHeader, Usage } from '../transcript';
import type { McpServerConfig, McpServerStatus } from './mcp';
import type { PromptReference } from '../references';
import type { WorktreeOptions } from '../worktreeOptions';
import type { SandboxSettings } from '../sandbox';
import { notification, request } from './descriptor';
import type { CacheStep } from '../cacheExplorer';
import type { CostFigures, PriceOverrides } from '../pricing';

/** Bumped on any incompatible change; checked in `initialize`. */
export const PROTOCOL_VERSION = 3;

/** JSON-RPC error codes the runtime answers with, beyond the standard ones. */
export const RuntimeErrorCode = {
  missingKey: -32001,
  protocolMismatch: -32002,
  busy: -32003,
  compactFailed: -32004,
  /** `initialize` without the runtime's token: nothing else is served on that connection. */
  unauthorized: -32005,
} as const;

/**
 * `token`: the content of the runtime's 0600 token file, which only the user who owns the store can read.
 * The key and every other request follow only after this handshake.
 */
export interface InitializationOptions { protocolVersion: number; clientName: string; token?: string }
export interface RuntimeInfo { protocolVersion: number; pid: number; storeDir: string; version: string }

/** Per-connection model access. The key lives in memory only: never logged, never written. */
export interface ConfigureParams {
  apiKey?: string;
  baseUrl?: string;
  model?: string;
  maxTokens?: number;
  approvalMode?: ApprovalMode;
  ripgrepPath?: string;
  /** Folder for the worktrees of forks this client starts (setting fork.worktreeRoot); default beside the repository. */
  worktreeRoot?: string;
  /** What a new fork worktree gets: ignored files, links, setup commands, ports (settings fork.worktree.*). Replaced as a whole. */
  worktree?: WorktreeOptions;
  /** The model's context window in tokens (default 200,000). */
  contextWindow?: number;
  /** Compact automatically when a request would pass this share of the window (0 < x ≤ 1, default 0.8). */
  autoCompactAt?: number;
  /** Forks run at most this many at a time; more wait in a queue (default 4). */
  maxConcurrentForks?: number;
  /** Extended-thinking budget of the sessions this client starts (setting fork.thinking.budgetTokens); 0: off. */
  thinkingBudgetTokens?: number;
  /** Prompt-cache TTL of the sessions this client starts (setting fork.cacheTtl); forks keep their parent's. */
  cacheTtl?: '5m' | '1h';
  /** `output_config.effort` of the sessions this client starts (setting fork.effort, CLI --effort); '' or absent: the model's default. */
  effort?: '' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  /** This client can answer permission requests of background forks. */
  answersForkApprovals?: boolean;
  /** Delete sessions and forks not written to for this many days (setting fork.retention.days; 0 or absent: keep). */
  retentionDays?: number;
  /** The editor's workspace is untrusted (Restricted Mode): tools may read, never write or run commands. */
  restricted?: boolean;
  /** fork.prices: dollars per million tokens per model id, over the built-in table. */
  prices?: PriceOverrides;
  /** fork.budget.perFork / perChat: dollars ("0.25") or tokens ("20000tokens"); empty: none. */
  budgetPerFork?: string;
  budgetPerChat?: string;
  /** fork.maxForksPerTurn: Agent calls the model may make in one turn; 0 or absent: no limit. */
  maxForksPerTurn?: number;
  /** fork.tournament.verify: the command each tournament attempt runs when it ends; absent: the detected test script. */
  tournamentVerify?: string;
  /** MCP servers this client trusts (repository servers only after the user said so); tools of new sessions. */
  mcpServers?: McpServerConfig[];
  /** Proxy for model and MCP HTTP traffic (VS Code's http.proxy, or HTTPS_PROXY/NO_PROXY in the CLI); url '' is direct. */
  proxy?: ProxySettings;
  /** fork.sandbox*, `--sandbox`: the OS sandbox around the commands of this client's forks (absent: auto). */
  sandbox?: SandboxSettings;
  /** `fork.provider`: the Anthropic API (default, needs apiKey), Amazon Bedrock or Google Vertex AI. */
  provider?: ProviderName;
  /** Bedrock: region (else AWS_REGION); credentials from the AWS chain. */
  bedrock?: { region?: string; baseUrl?: string };
  /** Vertex: project and region (else the SDK's env defaults); Google application-default credentials, or an access token. */
  vertex?: { projectId?: string; region?: string; accessToken?: string; baseUrl?: string };
}

export type ProviderName = 'anthropic' | 'bedrock' | 'vertex';

export interface ProxySettings { url?: string; strictSSL?: boolean; noProxy?: string }
export type ConfigureResult = RuntimeInfo;
export const runtimeConfigure = request<ConfigureParams, ConfigureResult>('runtime/configure');

export interface SendParams {
  /** Absent: start a new session rooted at `root`. */
  sessionId?: string;
  root: string;
  prompt: string;
  /** Client-chosen id echoed in every `session/event` of this turn. */
  turnId: string;
  /**
   * The entry the client's history ends at; the session rewinds to it first when it has moved on
   * (the user edited or removed requests). Null: rewind to the start; absent: no rewind.
   */
  afterEntryId?: string | null;
  /** Chat references (#file, #selection, …): content of the prompt entry, after the prompt text. */
  references?: PromptReference[];
  /** The model picked in the Chat view, for a new session (else the configured one); a session keeps its model. */
  model?: string;
}
export interface SendResult {
  sessionId: string;
  promptEntryId: string;
  lastEntryId?: string;
  stopReason: string;
  text: string;
  usage: Usage;
  error?: { kind: string; message: string };
  /** What this turn and the whole chat (its forks included) cost; absent when no price is known. */
  cost?: { turn: CostFigures; chat: CostFigures };
  /** Why the turn stopped at fork.budget.perChat (stopReason "budget"). */
  budgetReason?: string;
  /** The model the session runs on (its header's; the cost note names it). */
  model?: string;
}
export const sessionSend = request<SendParams, SendResult>('session/send');

export interface SessionEventParams { sessionId: string; turnId: string; event: AgentEvent }
export const sessionEvent = notification<SessionEventParams>('session/event');

export interface CompactParams { sessionId: string; focus?: string }
export interface CompactResult { summaryEntryId: string; tokensBefore: number; usage: Usage }
/** Summarises the session now (`/compact`); fails with a clear message and changes nothing on error. */
export const sessionCompact = request<CompactParams, CompactResult>('session/compact');

/** The requests that name one session and nothing else. */
export interface SessionIdParams { sessionId: string }
export interface CancelResult { cancelled: boolean }
export const sessionCancel = request<SessionIdParams, CancelResult>('session/cancel');

export interface SessionSummary {
  id: string;
  title: string;
  root: string;
  createdAt: string;
  running: boolean;
  parentSessionId?: string;
  /** MCP servers whose tools the session's header holds, and their state now. */
  mcpServers?: McpServerStatus[];
}
export interface SessionListParams { root?: string }
export interface SessionListResult { sessions: SessionSummary[] }
export const sessionList = request<SessionListParams | undefined, SessionListResult>('session/list');
/** Runtime → every client: an MCP server's state changed (started, failed, stopped, restarted, tools listed). */
export interface McpStateParams { server: McpServerStatus }
export const mcpState = notification<McpStateParams>('mcp/state');

export interface TranscriptResult {
  header: SessionHeader;
  entries: Entry[];
  running: boolean;
  /** Cost per response entry (by id) and in total, billed attempts without an entry included; absent: no price known. */
  costs?: { entries: Record<string, CostFigures>; total: CostFigures; model: string; priceFrom: 'setting' | 'table' };
  /** Everything billed to this session (its own requests only). */
  spent?: Usage;
  /** Lines of the session's file that were damaged when it was loaded, each with what was done about it. */
  damage?: string[];
}
export const sessionTranscript = request<SessionIdParams, TranscriptResult>('session/transcript');

/**
 * What the store takes on disk: session files plus history kept apart from them that forks share — copied
 * segment files (older stores) and retired transcripts of deleted chats (`segments` counts both).
 */
export interface StoreUsage { bytes: number; sessionBytes: number; segmentBytes: number; sessions: number; segments: number }
export type StoreInfoParams = Record<string, never> | undefined;
export type StoreInfoResult = StoreUsage;
export const storeInfo = request<StoreInfoParams, StoreInfoResult>('store/info');

/** Deletes one session (a chat) or one fork; forks of a deleted chat keep running and reviving. */
/** `force`: discard changes a fork's worktree holds that were never applied or kept (else they refuse the delete). */
export interface DeleteParams { sessionId?: string; forkId?: string; force?: boolean }
/** A worktree removed with its fork (or its chat); `keptBranch`: the branch the user kept stays. */
export interface RemovedWorktree { forkId: string; path: string; keptBranch?: string; discardedFiles: number }
/** `segmentsRemoved`: copied segment files and retired chat transcripts that nothing referenced any more. */
export interface DeleteResult { deleted: string; segmentsRemoved: number; freedBytes: number; store: StoreUsage; worktreesRemoved?: RemovedWorktree[] }
export const sessionDelete = request<DeleteParams, DeleteResult>('session/delete');

/** The cache explorer of a chat or fork: one step per request that got a response. */
export interface SessionCacheResult { steps: CacheStep[] }
export const sessionCache = request<SessionIdParams, SessionCacheResult>('session/cache');

/** Runtime → client: may this tool call run? The turn waits for the answer. */
export interface PermissionParams {
  sessionId: string;
  turnId: string;
  callId: string;
  toolName: string;
  category: ToolCategory;
  description: string;
  input: unknown;
}
/**
 * `unanswered`: nobody said no — there was no one to ask (no terminal, no editor, Restricted Mode), or
 * the question went away before an answer (cancelled, the fork ended). The model is told so, not that
 * the user denied the call.
 */
export interface PermissionResult { approved: boolean; reason?: string; unanswered?: boolean }
export const permissionRequest = request<PermissionParams, PermissionResult>('permission/request');
