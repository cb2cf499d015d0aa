// tournament/start: N attempts of one directive, each a worktree fork of the same point (docs/design.md). The verify command: the request's, else fork.tournament.verify, else the detected test script.
import { ResponseError } from 'vscode-jsonrpc/node';
import { modelIdProblem } from '../../common/modelChoice';
import { tournamentStart } from '../../common/protocol/forks';
import type { TournamentStartParams, TournamentStartResult } from '../../common/protocol/forks';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import { MAX_ATTEMPTS } from '../../common/tournament';
import type { ClientConnection } from '../clientConnection';
import { defaultVerify } from '../fork/tournament/detectVerify';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { MISSING_KEY_MESSAGE } from './send';
import { checkStartParams, forkAccess, invalidParams, retiredForkModel } from './startParams';
import { checkTextSize } from './textLimits';

export function registerTournamentStart(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(tournamentStart, async (params: TournamentStartParams): Promise<TournamentStartResult> => {
    const checked = checkStartParams('tournament/start', params);
    const models = params.models ?? undefined;
    if (models !== undefined && (!Array.isArray(models) || models.length === 0 || models.length > MAX_ATTEMPTS)) {
      throw invalidParams(`models must be a list of 1–${MAX_ATTEMPTS} model ids.`);
    }
    for (const model of models ?? []) {
      const problem = modelIdProblem(model);
      if (problem) throw invalidParams(problem);
    }
    const attempts = params.attempts ?? models?.length;
    if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) {
      throw invalidParams(`attempts must be a whole number from 1 to ${MAX_ATTEMPTS}.`);
    }
    if (params.verify !== undefined && typeof params.verify !== 'string') throw invalidParams('verify must be a command string ("" for none).');
    if (params.verify) checkTextSize('verify', params.verify);
    const configured = accessOf(client);
    if (!configured) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
    return await ctx.store.using(params.sessionId, parent => {
      if (parent.bootstrap) throw invalidParams('A fork cannot start a tournament; continue it with a message instead.');
      const access = forkAccess(client, configured, parent);
      const retired = retiredForkModel(parent, models, configured);
      if (retired) throw invalidParams(retired);
      const verify = params.verify !== undefined ? params.verify.trim() : defaultVerify(access, parent.header.root);
      return ctx.tournaments.start({
        spec: {
          parent, kind: 'fork', directive: checked.directive, turns: checked.turns, atEntryId: params.atEntryId,
          origin: checked.origin, name: checked.name,
        },
        attempts, models, verify: verify || undefined, differentApproaches: params.differentApproaches === true, budget: checked.budget,
      }, access);
    });
  });
}
