// git as a plain function of cwd. Arguments are an array (no shell); callers put `--` before user text.
import { execFile } from 'node:child_process';

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
    const env = options.env ? { ...process.env, ...options.env } : undefined;
    const child = execFile('git', args, { cwd, env, timeout: options.timeoutMs ?? 30_000, maxBuffer: 256 * 1024 * 1024, encoding },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ stdout, stderr: stderr.toString(), code } as GitResult | GitBytesResult);
      });
    // git may exit before reading all of its input (a failed check): that is its answer, not our crash.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
