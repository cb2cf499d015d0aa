// Branch and change counts from `git status --porcelain=v2 --branch`.
import { git } from './run';

export interface GitStatus { branch: string; ahead: number; behind: number; changed: number; untracked: number }

/** Null when cwd is not inside a git work tree. */
export async function gitStatus(cwd: string): Promise<GitStatus | null> {
  const result = await git(cwd, ['status', '--porcelain=v2', '--branch', '--untracked-files=normal']);
  if (result.code !== 0) return null;
  return parsePorcelainV2Status(result.stdout);
}

export function parsePorcelainV2Status(stdout: string): GitStatus {
  const status: GitStatus = { branch: '(detached)', ahead: 0, behind: 0, changed: 0, untracked: 0 };
  for (const line of stdout.split('\n')) {
    if (line.startsWith('# branch.head ')) status.branch = line.slice('# branch.head '.length);
    else if (line.startsWith('# branch.ab ')) {
      const match = /\+(\d+) -(\d+)/.exec(line);
      if (match) [status.ahead, status.behind] = [Number(match[1]), Number(match[2])];
    } else if (/^[12u] /.test(line)) status.changed++;
    else if (line.startsWith('? ')) status.untracked++;
  }
  return status;
}
