// The forkId every worktree request needs, checked before anything runs.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';

export function requireForkId(params: { forkId?: unknown } | undefined): string {
  if (typeof params?.forkId !== 'string' || params.forkId === '') throw new ResponseError(ErrorCodes.InvalidParams, 'This request needs a forkId.');
  return params.forkId;
}
