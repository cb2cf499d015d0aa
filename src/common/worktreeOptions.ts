// How a fork's new worktree is made ready to build, test and run: ignored files copied on
// request, heavy folders linked or cloned, setup commands, and a block of ports per running fork.
// Shared by the host's settings, the CLI and the runtime.

export type WorktreeCopyMode = 'copy' | 'clone';

export interface WorktreeOptions {
  /** Extra gitignore-style patterns of ignored paths to copy (setting fork.worktree.include), beside `.worktreeinclude`. */
  include?: string[];
  /** Ignored folders linked from the main working tree instead of copied (fork.worktree.link), e.g. node_modules. */
  link?: string[];
  /** "clone": copy-on-write clones (`cp --reflink=auto`) where the file system supports them. */
  copyMode?: WorktreeCopyMode;
  /** Commands run in the new worktree before the fork's first tool call (fork.worktree.setup; it runs code). */
  setup?: string[];
  /** Each setup command's timeout. */
  setupTimeoutMs?: number;
  /** Ports handed out to running forks, e.g. "20000-29999". */
  portRange?: string;
  /** Ports per fork (FORK_AGENTS_PORT_BASE … + block − 1). */
  portBlock?: number;
}

export const WORKTREE_INCLUDE_FILE = '.worktreeinclude';
export const DEFAULT_SETUP_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_PORT_RANGE = '20000-29999';
export const DEFAULT_PORT_BLOCK = 20;

/** "A-B" with 1024 ≤ A ≤ B ≤ 65535, else an error message. */
export function parsePortRange(text: string): { start: number; end: number } | string {
  const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const start = match ? Number(match[1]) : NaN;
  const end = match ? Number(match[2]) : NaN;
  if (!match || start < 1024 || end > 65535 || start > end) return `a port range is "FIRST-LAST" between 1024 and 65535 (got ${JSON.stringify(text)})`;
  return { start, end };
}

/** The setting's value (a command or a list of them) as a list of non-empty commands. */
export function setupCommands(value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map(item => item.trim());
}
