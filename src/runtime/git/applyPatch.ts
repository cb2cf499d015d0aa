// A patch (hunks chosen from several forks) onto the main working tree as uncommitted changes. `git apply`
// without --index leaves the index alone and is all-or-nothing: when any hunk does not fit the main tree
// as it is now, nothing is written and git's reasons are returned.
import { git } from './run';

export interface PatchOutcome { applied: boolean; files: string[]; problems: string[] }

export async function applyPatchToMain(repoRoot: string, patch: string): Promise<PatchOutcome> {
  if (patch.trim() === '') return { applied: false, files: [], problems: ['Nothing was chosen.'] };
  const files = (await git(repoRoot, ['apply', '--numstat', '-z', '-'], { input: patch })).stdout
    .split('\0').filter(Boolean).map(line => line.split('\t').slice(2).join('\t'));
  const check = await git(repoRoot, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch });
  if (check.code !== 0) return { applied: false, files, problems: check.stderr.trim().split('\n').filter(Boolean) };
  const result = await git(repoRoot, ['apply', '--whitespace=nowarn', '-'], { input: patch });
  if (result.code !== 0) return { applied: false, files, problems: result.stderr.trim().split('\n').filter(Boolean) };
  return { applied: true, files, problems: [] };
}
