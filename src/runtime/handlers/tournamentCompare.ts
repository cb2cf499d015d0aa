// tournament/compare: the attempts side by side (state, verify, changes, cost, cache share, report).
import { tournamentCompare } from '../../common/protocol/forks';
import type { TournamentCompareParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentCompare(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentCompare, ((params: TournamentCompareParams) => ctx.tournaments.compare(requireGroupId(params))));
}
