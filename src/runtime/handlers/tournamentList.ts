// tournament/list: the store's tournaments, optionally of one chat.
import { tournamentList } from '../../common/protocol/forks';
import type { TournamentListParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';

export function registerTournamentList(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentList, (params: TournamentListParams) => ({ groups: ctx.tournaments.list(params?.parentSessionId) }));
}
