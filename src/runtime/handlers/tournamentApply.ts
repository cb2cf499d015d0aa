// tournament/apply: one attempt whole, or hunks chosen from several; then, if asked, discard the rest.
import { tournamentApply } from '../../common/protocol/forks';
import type { TournamentApplyParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { applyTournament } from '../fork/tournament/applyChoice';
import type { RuntimeContext } from '../runtimeContext';
import { invalidParams } from './startParams';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentApply(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentApply, (async (params: TournamentApplyParams) => {
    const groupId = requireGroupId(params);
    if (params.onConflict !== undefined && params.onConflict !== 'refuse' && params.onConflict !== 'markers') throw invalidParams('onConflict must be "refuse" or "markers".');
    if (params.hunks !== undefined && (!Array.isArray(params.hunks) || params.hunks.some(h => !validChoice(h)))) {
      throw invalidParams('hunks must be a list of { attempt: fork id or attempt number, hunks: [numbers] or "all" }.');
    }
    const group = ctx.tournaments.get(groupId);
    const result = await applyTournament(ctx.forks, group.forkIds, { ...params, groupId });
    if (result.applied.length > 0 && result.conflicts.length === 0) {
      ctx.tournaments.recordApplied(groupId, params.forkId ? [params.forkId] : group.forkIds);
    }
    return result;
  }));
}

function validChoice(choice: unknown): boolean {
  const c = choice as { attempt?: unknown; hunks?: unknown } | null;
  if (!c || (typeof c.attempt !== 'string' && typeof c.attempt !== 'number')) return false;
  return c.hunks === 'all' || (Array.isArray(c.hunks) && c.hunks.length > 0 && c.hunks.every(n => Number.isInteger(n) && n > 0));
}
