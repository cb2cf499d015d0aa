// git as a plain function of cwd. Arguments are an array (no shell); callers put `--` before user text.
//
// The runtime's own git must never run a program a repository chose: every call disables
// hooks, fsmonitor and the other config keys that start programs, and in a fork's worktree it runs with
// GIT_DIR / GIT_WORK_TREE pinned to the admin folder recorded when the worktree was made, so a `.git` file
// the fork rewrote (`gitdir: <a folder with its own config>`) is never read.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/**
 * `-c` settings on every call. Filter, diff and merge drivers have open-ended names and cannot be listed
 * here: they are defined in config files a fork cannot reach (the repository's own `.git`, whose writes need
 * a command's approval, and the user's global config); the diff calls also pass --no-ext-diff --no-textconv.
 */
export const SAFE_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.pager=cat', 'core.editor=false', 'sequence.editor=false',
  'core.sshCommand=false', 'core.askPass=false', 'credential.helper=', 'gpg.program=false',
  'commit.gpgSign=false', 'tag.gpgSign=false', 'gc.auto=0', 'maintenance.auto=false', 'submodule.recurse=false',
  'protocol.allow=never', 'safe.bareRepository=explicit',
];
const SAFE_ARGS = SAFE_CONFIG.flatMap(setting => ['-c', setting]);
const SAFE_ENV: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'false', GIT_OPTIONAL_LOCKS: '0' };

/** Fork worktree (real path) → its git admin folder, as recorded when the worktree was made. */
const pinned = new Map<string, string>();

/** From now on every git call in `workTree` (or below it) uses `gitDir`, never the worktree's `.git` file. */
export function pinGitDir(workTree: string, gitDir: string): void {
  pinned.set(path.resolve(workTree), path.resolve(gitDir));
}

export function pinnedGitDir(workTree: string): string | undefined {
  return pinned.get(path.resolve(workTree));
}

function pinFor(cwd: string): { workTree: string; gitDir: string } | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const gitDir = pinned.get(dir);
    if (gitDir) return { workTree: dir, gitDir };
    if (path.dirname(dir) === dir) return undefined;
  }
}

export interface GitResult { stdout: string; stderr: string; code: number }
export interface GitBytesResult { stdout: Buffer; stderr: string; code: number }

export interface GitOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  /** Added to the inherited environment (GIT_INDEX_FILE for scratch indexes, identities for synthetic commits). */
  env?: Record<string, string>;
}

export function git(cwd: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return run(cwd, args, options, 'utf8') as Promise<GitResult>;
}

/** Like `git`, but stdout stays bytes: blob contents may be binary or in any encoding. */
export function gitBytes(cwd: string, args: string[], options: GitOptions = {}): Promise<GitBytesResult> {
  return run(cwd, args, options, 'buffer') as Promise<GitBytesResult>;
}

/** Runs git and fails with its stderr when it exits non-zero; returns stdout. */
export async function gitOk(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  const result = await git(cwd, args, options);
  if (result.code !== 0) throw new GitError(args, result);
  return result.stdout;
}

export class GitError extends Error {
  constructor(readonly args: string[], readonly result: { stderr: string; code: number }) {
    super(`git ${args[0]} failed (exit ${result.code}): ${result.stderr.trim().split('\n').slice(-3).join(' ') || 'no output'}`);
  }
}

function run(cwd: string, args: string[], options: GitOptions, encoding: 'utf8' | 'buffer'): Promise<GitResult | GitBytesResult> {
  return new Promise(resolve => {
    const pin = pinFor(cwd);
    const env: NodeJS.ProcessEnv = { ...process.env, ...SAFE_ENV, ...options.env };
    // A repository chosen by the environment would bypass the pin (and cwd): only the pin or discovery decide.
    delete env.GIT_DIR;
    delete env.GIT_WORK_TREE;
    delete env.GIT_CONFIG_PARAMETERS;
    if (pin) Object.assign(env, { GIT_DIR: pin.gitDir, GIT_WORK_TREE: pin.workTree });
    const child = execFile('git', [...SAFE_ARGS, ...args], { cwd, env, timeout: options.timeoutMs ?? 30_000, maxBuffer: 256 * 1024 * 1024, encoding },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ stdout, stderr: stderr.toString(), code } as GitResult | GitBytesResult);
      });
    // git may exit before reading all of its input (a failed check): that is its answer, not our crash.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * A long-lived git process (a `--batch` or `--stdin` reader) with the same settings and environment
 * hygiene as every other call: the caller writes requests and reads answers on its pipes.
 */
export function spawnGit(cwd: string, args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
  const pin = pinFor(cwd);
  const env: NodeJS.ProcessEnv = { ...process.env, ...SAFE_ENV, ...extraEnv };
  delete env.GIT_DIR;
  delete env.GIT_WORK_TREE;
  delete env.GIT_CONFIG_PARAMETERS;
  if (pin) Object.assign(env, { GIT_DIR: pin.gitDir, GIT_WORK_TREE: pin.workTree });
  return spawn('git', [...SAFE_ARGS, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
}
