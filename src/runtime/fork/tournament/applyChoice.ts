// Applying a tournament's result to the main working tree: one attempt whole (fork/apply's three-way
// apply), or hunks chosen from several attempts merged into one patch. Chosen hunks that overlap are
// shown as conflicts and nothing is written; then, if asked, every attempt's worktree goes in one action.
import type { ForkSummary } from '../../../common/forks';
import { isTerminal } from '../../../common/forks';
import type { HunkChoice, TournamentApplyParams, TournamentApplyResult } from '../../../common/protocol/forks';
import { applyPatchToMain } from '../../git/applyPatch';
import { gitOk } from '../../git/run';
import { discardForkWorktree, keepForkBranch } from '../../git/worktree';
import { ForkBusyError } from '../forkContracts';
import type { ForkManager } from '../forkManager';
import { applyFork, exclusive } from '../workspace/worktreeActions';
import { attemptPatch } from './decide';
import { chooseHunks, combinedPatch, findConflicts, parsePatch } from './hunks';
import type { Choice } from './hunks';

export class ChoiceError extends Error {}

export async function applyTournament(forks: ForkManager, forkIds: readonly string[], params: TournamentApplyParams): Promise<TournamentApplyResult> {
  const attempts = forkIds.map(id => forks.get(id)).filter((f): f is ForkSummary => f !== undefined);
  const result: TournamentApplyResult = { applied: [], hunkConflicts: [], conflicts: [], discarded: [], keptBranches: [], message: '' };
  if (params.forkId !== undefined) {
    if (!forkIds.includes(params.forkId)) throw new ChoiceError(`Fork ${params.forkId} is not an attempt of tournament ${params.groupId}.`);
    const outcome = await applyFork(forks, params.forkId, params.onConflict ?? 'refuse');
    result.applied = outcome.applied;
    result.conflicts = outcome.conflictDetails.map(c => `${c.path}: ${c.reason}`);
    result.message = outcome.message;
  } else if (params.hunks?.length) {
    const merged = await mergeHunks(attempts, params.hunks);
    Object.assign(result, merged);
  } else if (!params.discardRest) {
    throw new ChoiceError('tournament/apply needs forkId (one attempt whole) or hunks (chosen from attempts), or discardRest.');
  }
  const wrote = result.applied.length > 0 && result.conflicts.length === 0 && result.hunkConflicts.length === 0;
  if (params.discardRest && (wrote || (params.forkId === undefined && !params.hunks?.length))) {
    for (const fork of attempts) {
      const worktree = fork.worktree;
      if (!worktree || worktree.discarded) continue;
      await exclusive(fork.id, async () => {
        if (!isTerminal(forks.get(fork.id)!.state)) {
          forks.cancel(fork.id);
          await forks.wait(fork.id);
        }
        if (params.keepBranches) {
          await keepForkBranch(worktree, fork.name);
          result.keptBranches.push(worktree.branch);
        }
        await discardForkWorktree(worktree, { keepBranch: params.keepBranches === true });
        forks.updateWorktree(fork.id, { discarded: true, ...(params.keepBranches ? { keptAt: new Date().toISOString() } : {}) });
        result.discarded.push(fork.id);
      });
    }
    result.message += `${result.message ? ' ' : ''}Discarded ${result.discarded.length} attempt worktree${result.discarded.length === 1 ? '' : 's'}${params.keepBranches ? ', keeping their branches' : ''}.`;
  }
  return result;
}

async function mergeHunks(attempts: readonly ForkSummary[], choices: readonly HunkChoice[]): Promise<Pick<TournamentApplyResult, 'applied' | 'hunkConflicts' | 'conflicts' | 'message'>> {
  const parsed: Choice[] = [];
  let repoRoot: string | undefined;
  let baseTree: string | undefined;
  for (const choice of choices) {
    const fork = attempts.find(f => f.id === choice.attempt || f.tournament?.attempt === Number(choice.attempt));
    if (!fork) throw new ChoiceError(`No attempt ${choice.attempt} in this tournament.`);
    if (!isTerminal(fork.state)) throw new ForkBusyError(`Attempt ${fork.tournament?.attempt} is ${fork.state}; wait for it to finish or stop it first.`);
    if (!fork.worktree || fork.worktree.discarded) throw new ChoiceError(`Attempt ${fork.tournament?.attempt}'s worktree was discarded.`);
    // Hunks are numbered against each attempt's base; merging them needs one base for all.
    repoRoot ??= fork.worktree.repoRoot;
    const tree = await treeOf(fork);
    if (baseTree !== undefined && tree !== baseTree) throw new ChoiceError('The chosen attempts started from different states of the main tree; apply one of them whole instead.');
    baseTree = tree;
    parsed.push({ label: `attempt ${fork.tournament?.attempt}`, files: parsePatch(await attemptPatch(fork)), numbers: choice.hunks });
  }
  let chosen;
  try {
    chosen = chooseHunks(parsed);
  } catch (error) {
    throw new ChoiceError(error instanceof Error ? error.message : String(error));
  }
  const hunkConflicts = findConflicts(chosen);
  if (hunkConflicts.length > 0) {
    const list = hunkConflicts.map(c => `${c.path}: ${c.between[0]} hunk ${c.hunks[0]} and ${c.between[1]} hunk ${c.hunks[1]} (${c.reason})`).join('; ');
    return { applied: [], hunkConflicts, conflicts: [], message: `Not applied: chosen hunks conflict with each other: ${list}. Nothing was written; choose one side of each.` };
  }
  const outcome = await applyPatchToMain(repoRoot!, combinedPatch(chosen));
  if (!outcome.applied) {
    return { applied: [], hunkConflicts: [], conflicts: outcome.problems, message: `Not applied: the chosen hunks do not fit the main working tree: ${outcome.problems.join(' ')} Nothing was written.` };
  }
  return { applied: outcome.files, hunkConflicts: [], conflicts: [], message: `Applied ${chosen.length} hunk${chosen.length === 1 ? '' : 's'} to ${outcome.files.length} file${outcome.files.length === 1 ? '' : 's'} of the main working tree as uncommitted changes.` };
}

async function treeOf(fork: ForkSummary): Promise<string> {
  return (await gitOk(fork.worktree!.path, ['rev-parse', `${fork.worktree!.base}^{tree}`])).trim();
}
