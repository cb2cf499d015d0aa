// Fork lifecycle data shared by the runtime, the extension, the CLI and (later) the Forks panel.
import type { Budget } from './budget';
import type { CacheStep } from './cacheExplorer';
import type { CostFigures } from './pricing';
import type { SandboxState } from './sandbox';
import type { ForkTournament, VerifyResult } from './tournament';
import type { Usage } from './transcript';

/** paused-budget ("paused (budget)"): stopped before a request at its budget; continue (raising it) or stop it. */
export type ForkState = 'queued' | 'running' | 'waiting-for-approval' | 'paused-budget' | 'completed' | 'failed' | 'cancelled' | 'interrupted';
export const TERMINAL_FORK_STATES: readonly ForkState[] = ['completed', 'failed', 'cancelled'];

/** Who started it: the user (chat command, palette, panel), the agent (Agent tool), or Fork from here. */
export type ForkOrigin = 'user' | 'agent' | 'message';
export type Isolation = 'shared' | 'worktree';
export type ChildKind = 'fork' | 'general-purpose' | 'explore';

/** Where a worktree fork works (docs/design.md §4.8), fixed at launch; the last three fields follow the user's actions. */
export interface ForkWorktree {
  /** The fork's own working tree (real path), outside the main one. */
  path: string;
  /** Its branch, `fork/<slug>-<shortid>`. */
  branch: string;
  /** The commit the fork's changes are measured from: the parent's HEAD plus its uncommitted and untracked files. */
  base: string;
  /** The parent's HEAD when the fork started (absent in a repository without commits). */
  parentHead?: string;
  /** Top of the main working tree the fork came from and applies to. */
  repoRoot: string;
  /**
   * The worktree's git admin folder, recorded when it was made: the runtime's git always uses it (GIT_DIR),
   * never the `.git` file inside the worktree, which the fork can rewrite. Absent in records made before.
   */
  gitDir?: string;
  /** Files carried over from the parent's uncommitted state (modified, staged, deleted, untracked). */
  carried: number;
  appliedAt?: string;
  keptAt?: string;
  /** Worktree, branch and folder are gone (fork/discard, or removed by hand). */
  discarded?: boolean;
}

export interface ForkSummary {
  id: string;
  kind: ChildKind;
  name: string;
  parentSessionId: string;
  parentEntryId?: string;
  origin: ForkOrigin;
  forkTurns: string;
  /** A numeric window over a compacted conversation: the summary was left out (docs/design.md §4.2). */
  summaryExcluded?: boolean;
  isolation: Isolation;
  /** The fork's tools work here: the parent's root, or its counterpart inside the fork's worktree. */
  root: string;
  /** Worktree forks only. */
  worktree?: ForkWorktree;
  directive: string;
  state: ForkState;
  createdAt: string;
  endedAt?: string;
  /** Model requests made so far. */
  modelTurns: number;
  /** Everything billed so far: responses, plus attempts cut, failed or cancelled after they started. */
  usage: Usage;
  /** What `usage` cost, and would have cost uncached; absent when no price is known for the model. */
  cost?: CostFigures;
  /** The model the fork runs (its requests name it); `cost` uses its price. */
  model?: string;
  /**
   * Set when the fork was started with another model than its parent's (`model`): the parent's model. Its
   * first request could not read the parent's prompt cache.
   */
  parentModel?: string;
  /** Spending limit: the fork pauses (paused-budget) before a request once it is reached. */
  budget?: Budget;
  /** Why it paused, when it did. */
  pausedReason?: string;
  /** The cache explorer's answer per request. */
  cacheSteps?: CacheStep[];
  /** Usage of the fork's first request: its cache-read share shows the prefix sharing. */
  firstUsage?: Usage;
  /** Input tokens of the fork's latest request, against the model's context window. */
  context?: { tokens: number; window?: number };
  report?: string;
  error?: string;
  /**
   * Lines of its transcript that were damaged when the runtime loaded it, each with what was done (read back
   * from a sealed segment, or the exchange closed); `fork-agents doctor --repair` makes the mending permanent.
   */
  damage?: string[];
  /** A window already told the user that this run ended (fork/announce). */
  announced?: boolean;
  /** The worktree's preparation (ignored files, links, setup commands) of this fork's first run. */
  setup?: ForkSetupState;
  /** First of the ports this fork holds while it runs (FORK_AGENTS_PORT_BASE, PORT). */
  portBase?: number;
  /** Processes its bash tool left running that were ended when it stopped, finished or was discarded. */
  endedProcesses?: number;
  /** What its commands run in: the OS sandbox and its network policy, or why there is none (its latest run). */
  sandbox?: SandboxState;
  /** An attempt of a tournament: its group and number. */
  tournament?: ForkTournament;
  /** The tournament's verify command's run in this attempt's worktree, once it ended. */
  verify?: VerifyResult;
}

export interface ForkSetupState {
  state: 'running' | 'done' | 'failed';
  /** The command running or the last one run. */
  command?: string;
  exitCode?: number | null;
  /** Ignored files copied and folders linked into the worktree. */
  copied?: number;
  linked?: string[];
}

export function isTerminal(state: ForkState): boolean {
  return TERMINAL_FORK_STATES.includes(state);
}
