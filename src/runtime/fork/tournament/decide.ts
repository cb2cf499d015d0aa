// The verdict of a group whose attempts all ended: the verify results first (rankByVerify), then, when
// several attempts are left, one judge request over their diffs, verify output and reports.
import type { ForkSummary } from '../../../common/forks';
import type { AttemptOutcome, AttemptRanking, TournamentVerdict } from '../../../common/tournament';
import { rankByVerify } from '../../../common/tournament';
import type { Usage } from '../../../common/transcript';
import { forkDiff } from '../../git/forkDiff';
import { createAnthropicClient } from '../../model/lazyClient';
import type { SessionStore } from '../../session/sessionStore';
import type { ModelAccess } from '../forkContracts';
import { askJudge, judgeRequest, renderJudgePrompt } from './judge';
import type { JudgeCandidate } from './judge';

export interface Decision { verdict: TournamentVerdict; judgeUsage?: Usage; judgeModel?: string }

export async function attemptPatch(fork: ForkSummary): Promise<string> {
  const worktree = fork.worktree;
  if (!worktree || worktree.discarded) return '';
  return (await forkDiff(worktree.path, worktree.base).catch(() => ({ patch: '' }))).patch;
}

export async function decideVerdict(store: SessionStore, attempts: readonly ForkSummary[], access: ModelAccess | undefined, signal: AbortSignal): Promise<Decision> {
  const sorted = [...attempts].sort((a, b) => a.tournament!.attempt - b.tournament!.attempt);
  const patches = new Map(await Promise.all(sorted.map(async f => [f.id, await attemptPatch(f)] as const)));
  const outcomes: AttemptOutcome[] = sorted.map(f => ({
    forkId: f.id, attempt: f.tournament!.attempt, completed: f.state === 'completed', verify: f.verify, changedFiles: patches.get(f.id) ? 1 : 0,
  }));
  const decidedAt = new Date().toISOString();
  const first = rankByVerify(outcomes);
  if (first.kind === 'winner') return { verdict: { winner: first.forkId, reason: first.reason, decidedBy: 'verify', ranking: first.ranking, decidedAt } };
  if (first.kind === 'none') return { verdict: { winner: null, reason: first.reason, decidedBy: 'none', ranking: first.ranking, decidedAt } };
  const candidates = sorted.filter(f => first.candidates.includes(f.id));
  const numbers = candidates.map(f => f.tournament!.attempt);
  const tie = (reason: string): Decision => ({ verdict: { winner: null, reason, decidedBy: 'judge', ranking: first.ranking, decidedAt } });
  if (!access) return tie(`No winner: attempts ${numbers.join(', ')} tie on the verify stage and no model access is configured for the judge.`);
  const judged: JudgeCandidate[] = candidates.map(f => ({
    attempt: f.tournament!.attempt, model: f.model, report: f.report, patch: patches.get(f.id) ?? '',
    verify: f.verify && { command: f.verify.command, exitCode: f.verify.exitCode, outputTail: f.verify.outputTail },
  }));
  // The parent's model: the prefix the judge's request repeats is cached under it.
  const model = candidates[0].parentModel ?? candidates[0].model!;
  const body = await store.using(candidates[0].id, session => judgeRequest(session, model, renderJudgePrompt(judged)));
  const outcome = await askJudge(createAnthropicClient(access), body, numbers, signal);
  const ranking: AttemptRanking[] = first.ranking.map(r => {
    const said = outcome.answer.perAttempt.get(r.attempt);
    const candidate = numbers.includes(r.attempt);
    const rank = !candidate ? 3 : outcome.answer.winner === null || r.attempt === outcome.answer.winner ? 1 : 2;
    return { ...r, rank, reason: said ? `${r.reason}; judge: ${said}` : r.reason };
  });
  const winner = outcome.answer.winner === null ? null : candidates.find(f => f.tournament!.attempt === outcome.answer.winner)!.id;
  const reason = winner
    ? `Attempts ${numbers.join(', ')} passed the verify stage; the judge chose attempt ${outcome.answer.winner}: ${outcome.answer.reason}`
    : `No winner: attempts ${numbers.join(', ')} passed the verify stage and the judge did not pick one. ${outcome.answer.reason}`;
  return {
    verdict: { winner, reason, decidedBy: 'judge', ranking, judgeText: outcome.text || undefined, decidedAt },
    ...(outcome.usage ? { judgeUsage: outcome.usage, judgeModel: model } : {}),
  };
}
