// Fork tournaments: N attempts of one directive, each a fork of the same point in its own worktree, each
// verified by a command when it ends, then ranked (verify result first, then one judge request). Pure
// data and the ranking rule, shared by the runtime, the CLI and the panel.
import type { Budget } from './budget';

export const MAX_ATTEMPTS = 8;

/** On an attempt's summary: which group it belongs to and which attempt it is (1-based). */
export interface ForkTournament {
  groupId: string;
  attempt: number;
  of: number;
  /** "Take a different approach" hint given to this attempt, if any. */
  hint?: string;
}

/** The verify command's run in one attempt's worktree. */
export interface VerifyResult {
  command: string;
  /** null: it did not run to an exit (denied, timed out, cancelled, killed). */
  exitCode: number | null;
  passed: boolean;
  /** The last part of its combined output. */
  outputTail: string;
  durationMs: number;
  /** Why it did not run or did not finish (approval denied, Restricted Mode, timeout), if so. */
  note?: string;
}

export interface AttemptRanking {
  forkId: string;
  attempt: number;
  /** 1 is best; attempts sharing a rank were not told apart. */
  rank: number;
  reason: string;
}

/** The group's outcome. `winner` null: no winner, and `reason` says why (all failed, a tie, …). */
export interface TournamentVerdict {
  winner: string | null;
  reason: string;
  /** How it was decided: by the verify results alone, or by the judge among the best. */
  decidedBy: 'verify' | 'judge' | 'none';
  ranking: AttemptRanking[];
  /** The judge's own words, when it was asked. */
  judgeText?: string;
  decidedAt: string;
}

export interface TournamentSummary {
  id: string;
  parentSessionId: string;
  directive: string;
  forkIds: string[];
  /** Models per attempt, when they differ from the parent's. */
  models?: string[];
  verify?: string;
  /** One budget for all attempts together. */
  budget?: Budget;
  createdAt: string;
  verdict?: TournamentVerdict;
  /** Set once an attempt's changes (or chosen hunks) were applied to the main tree. */
  appliedAt?: string;
}

/** What the ranking needs of one attempt. */
export interface AttemptOutcome {
  forkId: string;
  attempt: number;
  /** The fork completed (its loop ended with a report). */
  completed: boolean;
  verify?: VerifyResult;
  /** Files it changed: an attempt that changed nothing cannot win a directive that asked for changes. */
  changedFiles: number;
}

export type VerifyRanking =
  | { kind: 'winner'; forkId: string; reason: string; ranking: AttemptRanking[] }
  | { kind: 'none'; reason: string; ranking: AttemptRanking[] }
  | { kind: 'judge'; candidates: string[]; ranking: AttemptRanking[] };

/**
 * The first stage: attempts that completed and whose verify passed (or that completed, when there is no
 * verify command) are the candidates. One candidate wins outright; none means no winner; several go to
 * the judge.
 */
export function rankByVerify(attempts: readonly AttemptOutcome[]): VerifyRanking {
  const good = (a: AttemptOutcome) => a.completed && (a.verify === undefined || a.verify.passed);
  const candidates = attempts.filter(good);
  const ranking: AttemptRanking[] = attempts.map(a => ({
    forkId: a.forkId, attempt: a.attempt, rank: good(a) ? 1 : 2, reason: outcomeReason(a),
  }));
  if (candidates.length === 1) {
    return { kind: 'winner', forkId: candidates[0].forkId, reason: `Attempt ${candidates[0].attempt} is the only one that ${passedText(candidates[0])}.`, ranking };
  }
  if (candidates.length === 0) {
    const verified = attempts.some(a => a.verify);
    return { kind: 'none', reason: verified ? 'No winner: every attempt failed its verify command or did not complete.' : 'No winner: no attempt completed.', ranking };
  }
  return { kind: 'judge', candidates: candidates.map(c => c.forkId), ranking };
}

function passedText(a: AttemptOutcome): string {
  return a.verify ? `passed its verify command (${a.verify.command})` : 'completed';
}

function outcomeReason(a: AttemptOutcome): string {
  if (!a.completed) return 'did not complete';
  if (!a.verify) return 'completed (no verify command)';
  if (a.verify.passed) return `verify passed in ${(a.verify.durationMs / 1000).toFixed(1)} s`;
  return a.verify.exitCode === null ? `verify did not finish${a.verify.note ? `: ${a.verify.note}` : ''}` : `verify failed (exit ${a.verify.exitCode})`;
}

/** The judge's answer read back: the winning attempt number (or none) and a reason per attempt. */
export interface JudgeAnswer { winner: number | null; reason: string; perAttempt: Map<number, string> }

/**
 * Reads the judge's plain-text answer: `WINNER: <n|none>`, `REASON: …`, `ATTEMPT <n>: …` lines. A winner
 * that was not a candidate, or an answer without a WINNER line, counts as no winner.
 */
export function parseJudgeAnswer(text: string, candidates: readonly number[]): JudgeAnswer {
  const perAttempt = new Map<number, string>();
  let winner: number | null = null;
  let sawWinner = false;
  let reason = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(/^[*_#>\s-]+/, '').replace(/\*\*/g, '');
    const win = /^WINNER\s*:\s*(.+)$/i.exec(line);
    if (win) {
      sawWinner = true;
      const n = /^(?:attempt\s*)?(\d+)\b/i.exec(win[1].trim());
      winner = n ? Number(n[1]) : null;
      continue;
    }
    const why = /^REASON\s*:\s*(.+)$/i.exec(line);
    if (why) {
      reason = why[1].trim();
      continue;
    }
    const each = /^ATTEMPT\s*(\d+)\s*:\s*(.+)$/i.exec(line);
    if (each) perAttempt.set(Number(each[1]), each[2].trim());
  }
  if (!sawWinner) return { winner: null, reason: 'The judge gave no WINNER line.', perAttempt };
  if (winner !== null && !candidates.includes(winner)) {
    return { winner: null, reason: `The judge named attempt ${winner}, which was not a candidate.`, perAttempt };
  }
  return { winner, reason: reason || (winner === null ? 'The judge found no better attempt (a tie).' : 'The judge gave no reason.'), perAttempt };
}
