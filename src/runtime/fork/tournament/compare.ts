// The compare view's data: each attempt side by side — state, verify result, files and lines changed,
// numbered hunks, cost, cache share of its first request, report.
import type { ForkSummary } from '../../../common/forks';
import { coldCacheText } from '../../../common/modelChoice';
import { HUNK_BODY_LINES } from '../../../common/protocol/forks';
import type { AttemptComparison, AttemptHunk, TournamentCompareResult } from '../../../common/protocol/forks';
import type { TournamentSummary } from '../../../common/tournament';
import type { Usage } from '../../../common/transcript';
import { inputTokens } from '../../../common/transcript';
import { forkDiff } from '../../git/forkDiff';
import type { ForkManager } from '../forkManager';
import { lineCounts, parsePatch } from './hunks';

export async function compareGroup(forks: ForkManager, group: TournamentSummary, judgeUsage?: Usage): Promise<TournamentCompareResult> {
  const attempts = group.forkIds.map(id => forks.get(id)).filter((f): f is ForkSummary => f !== undefined);
  return { group: { ...group }, attempts: await Promise.all(attempts.map(compareAttempt)), ...(judgeUsage ? { judgeUsage } : {}) };
}

async function compareAttempt(fork: ForkSummary): Promise<AttemptComparison> {
  const worktree = fork.worktree;
  // A worktree removed by hand (or a base gone) compares as no change: the comparison of the other attempts
  // must still come back, and the attempt's row says it changed nothing.
  const diff = worktree && !worktree.discarded ? await forkDiff(worktree.path, worktree.base).catch(() => undefined) : undefined;
  const files = diff ? parsePatch(diff.patch) : [];
  const { added, removed } = lineCounts(files);
  const first = fork.firstUsage;
  return {
    forkId: fork.id, attempt: fork.tournament?.attempt ?? 0, name: fork.name, state: fork.state, model: fork.model,
    ...(fork.parentModel && fork.model ? { coldCache: coldCacheText(fork.model, fork.parentModel) } : {}),
    ...(fork.verify ? { verify: fork.verify } : {}),
    files: diff?.files ?? [], added, removed,
    hunks: files.flatMap(f => f.hunks.map(h => ({
      number: h.number, path: f.path, header: f.whole ? '(whole file)' : `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@${h.context}`,
      ...hunkBody(f.whole ? wholeFileLines(f.text) : h.lines),
    }))),
    ...(fork.cost ? { cost: fork.cost } : {}),
    usage: fork.usage,
    ...(first && inputTokens(first) > 0 ? { cacheShare: first.cache_read_input_tokens / inputTokens(first) } : {}),
    ...(fork.report ? { report: fork.report } : {}),
    ...(fork.error ? { error: fork.error } : {}),
    ...(fork.pausedReason ? { pausedReason: fork.pausedReason } : {}),
  };
}

/** What the compare view and `compare --json` show of a hunk, so it can be chosen by reading it. */
function hunkBody(lines: readonly string[]): Pick<AttemptHunk, 'body' | 'moreLines'> {
  const shown = lines.slice(0, HUNK_BODY_LINES);
  return { body: shown.join('\n'), ...(lines.length > shown.length ? { moreLines: lines.length - shown.length } : {}) };
}

/** A whole-file change as the reader needs it: without the lines naming blobs and paths (the list shows the path). */
function wholeFileLines(text: string): string[] {
  return text.replace(/\n$/, '').split('\n').filter(line => !/^(diff --git |index |--- |\+\+\+ )/.test(line));
}
