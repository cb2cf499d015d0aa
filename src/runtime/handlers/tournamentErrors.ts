// The tournament requests' own parameter check; their errors (an unknown group, a bad choice) are mapped
// with every other handler's in protocolErrors.ts.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';

export function requireGroupId(params: { groupId?: unknown } | undefined): string {
  if (typeof params?.groupId !== 'string' || params.groupId === '') throw new ResponseError(ErrorCodes.InvalidParams, 'This request needs a groupId.');
  return params.groupId;
}
