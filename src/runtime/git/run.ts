// git as a plain function of cwd. Arguments are an array (no shell); callers put `--` before user text.
import { execFile } from 'node:child_process';

export interface GitResult { stdout: string; stderr: string; code: number }

export function git(cwd: string, args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise(resolve => {
    const child = execFile('git', args, { cwd, timeout: options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ stdout, stderr, code });
      });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
