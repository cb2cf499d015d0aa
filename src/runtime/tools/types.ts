// The contract every tool implements. One file per tool in this folder.
import type { ToolCategory } from '../../common/approval';
import type { ForkTurns } from '../../common/forkTurns';
import type { ImageBlock, TextBlock, ToolDefinition } from '../../common/transcript';

export interface ToolContext {
  /** Absolute, real path of the session root; file tools must stay inside it. */
  root: string;
  signal: AbortSignal;
  /** Path of a ripgrep binary (VS Code ships one under appRoot); absent means use the plain fallback. */
  ripgrepPath?: string;
  /** Id of the tool_use being answered (the Agent tool needs it to close the fork's boundary). */
  callId?: string;
  /**
   * The call was approved as a command would be (or the mode runs commands unasked): only then may a file
   * tool write inside a `.git` folder or file, whose config and hooks make git run programs.
   */
  gitWritesAllowed?: boolean;
  /** Starts forks and subagents for the Agent tool; absent where subagents are not available. */
  subagents?: SubagentHost;
  /** Added to the environment of processes the tools start (a fork's FORK_AGENTS_* variables and PORT). */
  env?: Readonly<Record<string, string>>;
  /** Told the process group of every command started, so the fork can end what it leaves running. */
  onProcessGroup?(pgid: number): void;
  /** Commands run inside this OS sandbox (src/runtime/sandbox/); absent: unsandboxed. */
  sandbox?: CommandSandbox;
  /** Paths the file tools may neither read nor write, the same the sandbox hides or keeps read-only. */
  fileRules?: FileRules;
}

/** What one command spawns instead of `bash -lc`: a sandbox launcher, its whole environment and extra fds (from 3). */
export interface CommandPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  stdio: number[];
  /** After spawn: descriptors handed to the child are closed here. */
  started(): void;
}

export interface CommandSandbox {
  /** `extraEnv`: the tool's own variables (fork ids, PORT, pager, call marker); the sandbox adds only an allow-list of the runtime's. */
  plan(command: string, cwd: string, extraEnv: Record<string, string>): CommandPlan | { refused: string };
  /** A note for the model when a failed command's output shows the sandbox stopped it. */
  explain(output: string): string | undefined;
}

export interface FileRules {
  /** Absolute real paths: nothing at or under them is read or written. */
  denied: readonly string[];
  /** Absolute real paths kept read-only (a worktree's `.git` pointer). */
  readOnly: readonly string[];
}

export interface AgentToolInput {
  subagent_type: 'fork' | 'general-purpose' | 'explore';
  description: string;
  prompt: string;
  fork_turns?: ForkTurns;
  isolation?: 'worktree' | 'shared';
  run_in_background: boolean;
  /** Forks only: more than 1 starts a tournament of that many attempts. */
  attempts?: number;
}

export interface SubagentHost {
  run(input: AgentToolInput, callId: string, signal: AbortSignal): Promise<ToolOutput>;
}

export interface ToolOutput {
  /** Text returned to the model as the tool_result content. */
  content: string;
  /** Sent instead of `content` when the result holds images (MCP tools). */
  blocks?: (TextBlock | ImageBlock)[];
  isError?: boolean;
  /** Root-relative paths the call read or changed, for file anchors in the chat. */
  files?: string[];
  /** bash: the command's exit code; null when it was stopped (timeout, cancel) or killed by a signal. */
  exitCode?: number | null;
}

export interface Tool {
  definition: ToolDefinition;
  category: ToolCategory;
  /** One line for progress and approval prompts, e.g. "Edit src/a.ts". Must not throw on bad input. */
  describe(input: unknown): string;
  /** The approval this call needs when it differs from `category` (a write under `.git` needs exec's). Must not throw. */
  approvalCategory?(input: unknown, root: string): Promise<ToolCategory>;
  run(input: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

/** A tool error the model should see (bad input, path outside root, …), not a crash. */
export class ToolError extends Error {}
