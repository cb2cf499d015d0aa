// The runtime's errors reach clients through one mapping (src/runtime/protocolErrors.ts): each kind gets
// the JSON-RPC code its callers act on (the CLI exits 2 on InvalidParams), its message unchanged.
import * as assert from 'node:assert/strict';
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { RuntimeErrorCode } from '../../src/common/protocol/runtime';
import { DeleteRefusedError } from '../../src/runtime/deletion';
import { BudgetError, ForkBusyError, ForkNotFoundError } from '../../src/runtime/fork/forkContracts';
import { ForkPointError } from '../../src/runtime/fork/history/select';
import { NoWorktreeError } from '../../src/runtime/fork/workspace/worktreeActions';
import { toResponseError } from '../../src/runtime/protocolErrors';
import { BadRootError } from '../../src/runtime/session/createSession';
import { SessionNotFoundError } from '../../src/runtime/session/sessionStore';

function codeOf(error: Error): [number, string] | Error {
  const mapped = toResponseError(error);
  return mapped instanceof ResponseError ? [mapped.code, mapped.message] : (mapped as Error);
}

describe('protocol errors', () => {
  it('the caller\'s mistakes are InvalidParams, with their message', () => {
    for (const type of [SessionNotFoundError, BadRootError, ForkNotFoundError, ForkPointError, BudgetError, NoWorktreeError]) {
      assert.deepEqual(codeOf(new type(`${type.name} said so`)), [ErrorCodes.InvalidParams, `${type.name} said so`], type.name);
    }
  });

  it('a busy fork is InvalidRequest; a refused delete is busy; anything else passes through', () => {
    assert.deepEqual(codeOf(new ForkBusyError('still running')), [ErrorCodes.InvalidRequest, 'still running']);
    assert.deepEqual(codeOf(new DeleteRefusedError('unapplied work')), [RuntimeErrorCode.busy, 'unapplied work']);
    const other = new Error('disk on fire');
    assert.equal(codeOf(other), other);
    const already = new ResponseError(ErrorCodes.InvalidParams, 'as it was');
    assert.equal(toResponseError(already), already);
  });
});
