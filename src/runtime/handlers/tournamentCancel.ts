// tournament/cancel: stops every attempt of the group, and its judge.
import { tournamentCancel } from '../../common/protocol/forks';
import type { TournamentCancelParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentCancel(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentCancel, (async (params: TournamentCancelParams) =>
    ({ cancelled: ctx.tournaments.cancel(requireGroupId(params)) })));
}
