// The one place the runtime's own errors become JSON-RPC errors (docs/design.md §7). Every handler is
// served through ClientConnection.handle, which passes what it throws through here: the caller's mistake
// (an unknown session or fork, a bad fork point, a budget, not a repository) is InvalidParams, which the CLI
// reports with exit code 2; a state that forbids the request now (a running fork) is InvalidRequest; a
// delete refused because of unapplied work is `busy`; a transcript that cannot be written is InternalError
// with its own message. Anything else propagates as it is.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { RuntimeErrorCode } from '../common/protocol/runtime';
import { DeleteRefusedError } from './deletion';
import { BudgetError, ForkBusyError, ForkModelError, ForkNotFoundError } from './fork/forkContracts';
import { ForkPointError } from './fork/history/select';
import { ChoiceError } from './fork/tournament/applyChoice';
import { TournamentNotFoundError } from './fork/tournament/tournamentManager';
import { NoWorktreeError } from './fork/workspace/worktreeActions';
import { WorktreeError } from './git/worktree';
import { BadRootError } from './session/createSession';
import { TranscriptWriteError } from './session/jsonl';
import { SessionNotFoundError } from './session/sessionStore';

const CALLERS_MISTAKES = [SessionNotFoundError, BadRootError, ForkNotFoundError, ForkPointError, BudgetError, NoWorktreeError, TournamentNotFoundError, ChoiceError, ForkModelError];

export function toResponseError(error: unknown): unknown {
  if (error instanceof ResponseError) return error;
  if (CALLERS_MISTAKES.some(type => error instanceof type)) return new ResponseError(ErrorCodes.InvalidParams, (error as Error).message);
  if (error instanceof WorktreeError && error.reason !== 'failed') return new ResponseError(ErrorCodes.InvalidParams, error.message);
  if (error instanceof ForkBusyError) return new ResponseError(ErrorCodes.InvalidRequest, error.message);
  if (error instanceof DeleteRefusedError) return new ResponseError(RuntimeErrorCode.busy, error.message);
  if (error instanceof TranscriptWriteError) return new ResponseError(ErrorCodes.InternalError, error.message);
  return error;
}
