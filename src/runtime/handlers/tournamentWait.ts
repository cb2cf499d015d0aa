// tournament/wait: resolves once the group has its verdict (or every attempt ended or paused at the budget).
import { tournamentWait } from '../../common/protocol/forks';
import type { TournamentWaitParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentWait(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentWait, ((params: TournamentWaitParams) =>
    ctx.tournaments.wait(requireGroupId(params), accessOf(client))));
}
