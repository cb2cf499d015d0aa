// fork-agents fork --attempts N / compare --group / apply --group: tournaments from the command line.
// `fork --attempts N --wait --json` prints one JSON line per attempt, then the group's result line.
import { onRequest, sendRequest } from '../../common/protocol/endpoint';
import { permissionRequest } from '../../common/protocol/runtime';
import { tournamentApply, tournamentCompare, tournamentStart, tournamentWait } from '../../common/protocol/forks';
import type { AttemptComparison, HunkChoice, TournamentCompareResult } from '../../common/protocol/forks';
import { MAX_ATTEMPTS } from '../../common/tournament';
import { usdText } from '../../common/pricing';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { CliFailure, printJson } from '../output';
import { askOnTerminal, oneAtATime, terminalCanAsk } from './terminalApproval';

export function isTournament(args: ParsedArgs): boolean {
  return args.flags.has('attempts') || args.flags.has('models');
}

export async function tournamentCommand(args: ParsedArgs, sessionId: string, directive: string, budget: string | undefined): Promise<void> {
  const models = args.flags.get('models')?.split(',').map(m => m.trim()).filter(Boolean);
  const attemptsText = args.flags.get('attempts');
  const attempts = attemptsText === undefined ? models?.length : Number(attemptsText);
  if (attempts === undefined || !Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) throw new UsageError(`--attempts must be 1–${MAX_ATTEMPTS}`);
  if (args.flags.has('isolation') && args.flags.get('isolation') !== 'worktree') throw new UsageError('a tournament\'s attempts always work in their own worktrees');
  const json = args.switches.has('json');
  const client = await connectCli(args, { sessionId });
  try {
    const started = await sendRequest(client.endpoint, tournamentStart, {
      sessionId, directive, attempts, forkTurns: args.flags.get('turns'), atEntryId: args.flags.get('at'), budget,
      ...(models ? { models } : {}), ...(args.flags.has('verify') ? { verify: args.flags.get('verify') } : {}),
      differentApproaches: args.switches.has('different'),
    });
    const group = started.group;
    if (!args.switches.has('wait')) {
      if (json) printJson({ type: 'result', groupId: group.id, forkIds: group.forkIds, verify: group.verify ?? null });
      else process.stdout.write(`${group.id}\n`);
      return;
    }
    if (!json) process.stderr.write(`tournament ${group.id}: ${attempts} attempts${group.verify ? `, verify: ${group.verify}` : ', no verify command'}; waiting…\n`);
    // On a terminal the attempts' approvals are asked here, one at a time and naming the attempt, as
    // `fork --wait` asks a fork's; without one a connected editor answers, else they are refused after a while.
    const answerApprovals = terminalCanAsk();
    if (answerApprovals) {
      const attemptOf = new Map(started.attempts.map(a => [a.id, a.tournament?.attempt]));
      onRequest(client.endpoint, permissionRequest, oneAtATime(params => askOnTerminal(params, `attempt ${attemptOf.get(params.sessionId) ?? '?'} of ${attempts}`)));
    }
    const result = await sendRequest(client.endpoint, tournamentWait, { groupId: group.id, ...(answerApprovals ? { answerApprovals } : {}) });
    if (json) {
      for (const attempt of result.attempts) printJson({ type: 'attempt', ...attemptLine(attempt) });
      printJson(resultLine(result));
    } else {
      printCompare(result);
    }
    if (result.attempts.some(a => a.state === 'paused-budget')) throw new CliFailure('the tournament\'s budget is reached; its attempts are paused');
    if (!result.group.verdict?.winner) throw new CliFailure(result.group.verdict?.reason ?? 'no winner');
  } finally {
    await client.close();
  }
}

export async function compareCommand(args: ParsedArgs): Promise<void> {
  const groupId = groupIdOf(args, 'compare');
  const client = await connectCli(args);
  try {
    const result = await sendRequest(client.endpoint, tournamentCompare, { groupId });
    if (args.switches.has('json')) {
      for (const attempt of result.attempts) printJson({ type: 'attempt', ...attemptLine(attempt) });
      printJson(resultLine(result));
    } else {
      printCompare(result);
    }
  } finally {
    await client.close();
  }
}

/**
 * apply --group ID --fork ID | --winner | --hunks "1:1,2 2:3" [--discard-rest [--keep-branches]]. Hunk
 * choices name an attempt (its number or fork id) and its hunk numbers as `compare` lists them, or `all`.
 */
export async function applyGroupCommand(args: ParsedArgs): Promise<void> {
  const groupId = groupIdOf(args, 'apply');
  const hunks = parseHunkChoices([args.flags.get('hunks') ?? '', ...args.positional].join(' '));
  const winner = args.switches.has('winner');
  const forkId = args.flags.get('fork');
  if ([winner, forkId !== undefined, hunks.length > 0].filter(Boolean).length > 1) throw new UsageError('apply --group takes one of --fork ID, --winner or --hunks');
  const client = await connectCli(args);
  try {
    let chosen = forkId;
    if (winner) {
      const verdict = (await sendRequest(client.endpoint, tournamentCompare, { groupId })).group.verdict;
      if (!verdict?.winner) throw new CliFailure(`no winner to apply: ${verdict?.reason ?? 'the tournament has no verdict yet'}`);
      chosen = verdict.winner;
    }
    const result = await sendRequest(client.endpoint, tournamentApply, {
      groupId, ...(chosen ? { forkId: chosen } : {}), ...(hunks.length ? { hunks } : {}),
      discardRest: args.switches.has('discard-rest'), keepBranches: args.switches.has('keep-branches'),
    });
    if (args.switches.has('json')) printJson({ type: 'result', groupId, ...result });
    else {
      for (const file of result.applied) process.stdout.write(`applied ${file}\n`);
      for (const c of result.hunkConflicts) process.stdout.write(`conflict ${c.path}: ${c.between[0]} hunk ${c.hunks[0]} vs ${c.between[1]} hunk ${c.hunks[1]} (${c.reason})\n`);
      for (const c of result.conflicts) process.stdout.write(`conflict ${c}\n`);
      process.stderr.write(result.message + '\n');
    }
    if (result.hunkConflicts.length > 0 || result.conflicts.length > 0) throw new CliFailure('conflicts: nothing was written');
  } finally {
    await client.close();
  }
}

export function parseHunkChoices(text: string): HunkChoice[] {
  const choices: HunkChoice[] = [];
  for (const item of text.split(/[\s;]+/).filter(Boolean)) {
    const match = /^([^:]+):(all|\d+(?:,\d+)*)$/.exec(item);
    if (!match) throw new UsageError(`--hunks: "${item}" is not ATTEMPT:N,N or ATTEMPT:all (e.g. 1:1,2 2:3)`);
    const attempt = /^\d+$/.test(match[1]) ? Number(match[1]) : match[1];
    choices.push({ attempt, hunks: match[2] === 'all' ? 'all' : match[2].split(',').map(Number) });
  }
  return choices;
}

function groupIdOf(args: ParsedArgs, verb: string): string {
  const groupId = args.flags.get('group');
  if (!groupId) throw new UsageError(`${verb} needs --group ID`);
  return groupId;
}

function attemptLine(a: AttemptComparison) {
  return {
    forkId: a.forkId, attempt: a.attempt, state: a.state, model: a.model, ...(a.coldCache ? { coldCache: a.coldCache } : {}),
    verify: a.verify ?? null, files: a.files, added: a.added, removed: a.removed, hunks: a.hunks,
    cost: a.cost ?? null, usage: a.usage, cacheShare: a.cacheShare ?? null, report: a.report ?? null, error: a.error ?? null, pausedReason: a.pausedReason ?? null,
  };
}

function resultLine(result: TournamentCompareResult) {
  const verdict = result.group.verdict;
  return {
    type: 'result', groupId: result.group.id, forkIds: result.group.forkIds, winner: verdict?.winner ?? null,
    reason: verdict?.reason ?? (result.attempts.some(a => a.state === 'paused-budget') ? 'paused at the tournament\'s budget' : 'no verdict yet'),
    decidedBy: verdict?.decidedBy ?? null, ranking: verdict?.ranking ?? [], judgeUsage: result.judgeUsage ?? null,
  };
}

function printCompare(result: TournamentCompareResult): void {
  const verdict = result.group.verdict;
  for (const a of result.attempts) {
    const verify = a.verify ? `${a.verify.passed ? 'pass' : 'FAIL'} (exit ${a.verify.exitCode ?? '–'}, ${(a.verify.durationMs / 1000).toFixed(1)} s)` : 'not verified';
    const cost = a.cost ? usdText(a.cost.usd) : 'no price';
    const cache = a.cacheShare === undefined ? '' : ` · cache ${(a.cacheShare * 100).toFixed(0)}%`;
    const mark = verdict?.winner === a.forkId ? ' ★ winner' : '';
    process.stdout.write(`#${a.attempt} ${a.forkId} ${a.state}${mark} · verify ${verify} · ${a.files.length} files +${a.added} −${a.removed} · ${cost}${cache}${a.model ? ` · ${a.model}` : ''}\n`);
    if (a.coldCache) process.stdout.write(`   ${a.coldCache}\n`);
    for (const h of a.hunks) process.stdout.write(`   hunk ${h.number}: ${h.path} ${h.header}\n`);
    const rank = verdict?.ranking.find(r => r.forkId === a.forkId);
    if (rank) process.stdout.write(`   rank ${rank.rank}: ${rank.reason}\n`);
  }
  process.stdout.write(`${verdict ? verdict.reason : 'no verdict yet'}\n`);
}
