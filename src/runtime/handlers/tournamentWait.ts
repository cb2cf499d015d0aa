// tournament/wait: resolves once the group has its verdict (or every attempt ended or paused at the budget);
// the waiting client may answer the attempts' approvals meanwhile.
import { tournamentWait } from '../../common/protocol/forks';
import type { TournamentWaitParams } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { requireGroupId } from './tournamentErrors';

export function registerTournamentWait(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentWait, async (params: TournamentWaitParams) => {
    const groupId = requireGroupId(params);
    if (params.answerApprovals !== true) return ctx.tournaments.wait(groupId, accessOf(client));
    // A terminal waiting for its tournament answers its attempts' questions (fork --attempts N --wait).
    const stops = ctx.tournaments.get(groupId).forkIds.map(forkId => ctx.approvals.answerFor(forkId, client));
    try {
      return await ctx.tournaments.wait(groupId, accessOf(client));
    } finally {
      for (const stop of stops) stop();
    }
  });
}
