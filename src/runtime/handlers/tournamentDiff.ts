// tournament/diff: what attempt `b` has that attempt `a` does not (their worktrees' current states).
import { tournamentDiff } from '../../common/protocol/forks';
import type { TournamentDiffParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { attemptsDiff } from '../fork/tournament/attemptsDiff';
import type { RuntimeContext } from '../runtimeContext';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentDiff(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentDiff, (async (params: TournamentDiffParams) =>
    ({ patch: await attemptsDiff(ctx.forks, ctx.tournaments.get(requireGroupId(params)).forkIds, params.a, params.b) })));
}
