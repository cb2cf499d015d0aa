// What a running turn emits (pi-mono style discriminated union). Chat, CLI and forks consume these.
import type { Entry, Usage } from './transcript';
import type { ToolCategory } from './approval';

export type ErrorKind =
  | 'missing_key' | 'auth' | 'rate_limit' | 'overloaded' | 'network' | 'server'
  | 'bad_request' | 'stream_cut' | 'cancelled' | 'internal';

export interface ErrorInfo { kind: ErrorKind; message: string; status?: number }

/** budget: a spending limit was reached before the next request. */
export type TurnStopReason = 'end_turn' | 'max_tokens' | 'cancelled' | 'error' | 'max_turns' | 'budget';

export type AgentEvent =
  | { type: 'turn_start'; promptEntryId: string }
  | { type: 'request_start'; index: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'tool_call'; callId: string; name: string; category: ToolCategory; description: string }
  | { type: 'approval_wait'; callId: string; description: string }
  | { type: 'tool_result'; callId: string; name: string; isError: boolean; summary: string; files: string[] }
  | { type: 'entry'; entry: Entry }
  /**
   * contextTokens: input of the request just made (cache reads and writes included), of contextWindow.
   * billedOnly: what attempts that produced no response were billed (retried, cut, cancelled); no turn.
   */
  | { type: 'usage'; usage: Usage; contextTokens: number; contextWindow?: number; billedOnly?: boolean }
  | { type: 'compaction'; auto: boolean; summaryEntryId: string; tokensBefore: number }
  | { type: 'compaction_failed'; auto: boolean; error: ErrorInfo }
  | { type: 'retry'; attempt: number; delayMs: number; error: ErrorInfo }
  /** A fork's worktree preparation: a setup command starts, prints, ends. */
  | { type: 'setup_start'; command: string }
  | { type: 'setup_output'; text: string }
  | { type: 'setup_end'; command: string; exitCode: number | null; timedOut: boolean; durationMs: number }
  | { type: 'turn_end'; stopReason: TurnStopReason; error?: ErrorInfo; lastEntryId?: string };
