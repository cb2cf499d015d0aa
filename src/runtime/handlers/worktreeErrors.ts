// The JSON-RPC errors of the worktree requests: the caller's mistake (unknown fork, no worktree, not a
// repository) is InvalidParams, a fork that is still busy is InvalidRequest, anything else propagates.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { WorktreeError } from '../git/worktree';
import { ForkBusyError, ForkNotFoundError } from '../fork/forkContracts';
import { NoWorktreeError } from '../fork/workspace/worktreeActions';

export function asResponseError(error: unknown): unknown {
  if (error instanceof ForkNotFoundError || error instanceof NoWorktreeError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
  if (error instanceof WorktreeError && error.reason !== 'failed') return new ResponseError(ErrorCodes.InvalidParams, error.message);
  if (error instanceof ForkBusyError) return new ResponseError(ErrorCodes.InvalidRequest, error.message);
  return error;
}

/** Wraps a handler so its refusals reach the client with the right code. */
export function mappingErrors<P, R>(handler: (params: P) => Promise<R>): (params: P) => Promise<R> {
  return async params => {
    try {
      return await handler(params);
    } catch (error) {
      throw asResponseError(error);
    }
  };
}

export function requireForkId(params: { forkId?: unknown } | undefined): string {
  if (typeof params?.forkId !== 'string' || params.forkId === '') throw new ResponseError(ErrorCodes.InvalidParams, 'This request needs a forkId.');
  return params.forkId;
}
