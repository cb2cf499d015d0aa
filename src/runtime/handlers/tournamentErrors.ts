// The JSON-RPC errors of the tournament requests: an unknown group or a bad choice is InvalidParams; the
// worktree requests' mapping (worktreeErrors.ts) covers the rest.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { ChoiceError } from '../fork/tournament/applyChoice';
import { TournamentNotFoundError } from '../fork/tournament/tournamentManager';
import { asResponseError } from './worktreeErrors';

export function mappingTournamentErrors<P, R>(handler: (params: P) => Promise<R>): (params: P) => Promise<R> {
  return async params => {
    try {
      return await handler(params);
    } catch (error) {
      if (error instanceof TournamentNotFoundError || error instanceof ChoiceError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw asResponseError(error);
    }
  };
}

export function requireGroupId(params: { groupId?: unknown } | undefined): string {
  if (typeof params?.groupId !== 'string' || params.groupId === '') throw new ResponseError(ErrorCodes.InvalidParams, 'This request needs a groupId.');
  return params.groupId;
}
