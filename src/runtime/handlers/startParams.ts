// What fork/start and tournament/start both check of their parameters, and the fork spec they build.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import type { Budget } from '../../common/budget';
import { parseBudget } from '../../common/budget';
import type { ForkTurns } from '../../common/forkTurns';
import { parseForkTurns } from '../../common/forkTurns';
import type { ForkStartParams } from '../../common/protocol/forks';
import { checkTextSize } from './textLimits';
import { shortText } from '../../common/forkDisplay';
import { retiredModelText, retiredToday } from '../../common/models';
import type { ClientConnection } from '../clientConnection';
import type { ModelAccess } from '../fork/forkContracts';
import type { Session } from '../session/session';

export interface CheckedStart {
  directive: string;
  turns: ForkTurns;
  budget?: Budget;
  name: string;
  origin: 'user' | 'message';
}

export const invalidParams = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);

export function checkStartParams(method: string, params: Omit<ForkStartParams, 'model' | 'isolation'>): CheckedStart {
  if (typeof params?.directive !== 'string' || params.directive.trim() === '') throw invalidParams(`${method} needs a non-empty directive.`);
  checkTextSize('directive', params.directive);
  if (typeof params.sessionId !== 'string') throw invalidParams(`${method} needs a sessionId string.`);
  if (params.atEntryId !== undefined && typeof params.atEntryId !== 'string') throw invalidParams('atEntryId must be a string.');
  if (params.name !== undefined && params.name !== null && typeof params.name !== 'string') {
    throw invalidParams(`name must be a string (got ${Array.isArray(params.name) ? 'an array' : typeof params.name}).`);
  }
  const turns = parseForkTurns(params.forkTurns, 'user');
  if (!turns.ok) throw invalidParams(turns.error);
  const budget = params.budget === undefined ? undefined : parseBudget(params.budget);
  if (budget && !budget.ok) throw invalidParams(`budget: ${budget.error}`);
  return {
    directive: params.directive.trim(), turns: turns.value, budget: budget?.ok ? budget.value : undefined,
    name: params.name?.trim() || defaultName(params.directive), origin: params.origin === 'message' ? 'message' : 'user',
  };
}

/** The directive itself when short, else cut at a word (never mid-phrase after six words); the full text stays the directive. */
function defaultName(directive: string): string {
  return shortText(directive, 48);
}

/**
 * The access forks start with. A client that set no approval mode (the CLI without --approval) gets the mode
 * the chat's latest turn ran with (ask when none is recorded): a fork is never looser than its chat, and a chat
 * run with `auto` does not start forks that wait for an editor. It becomes the fork's launch mode, the ceiling
 * for fork/send.
 */
export function forkAccess(client: ClientConnection, access: ModelAccess, parent: Pick<Session, 'approvalMode'>): ModelAccess {
  return client.config.approvalMode === undefined ? { ...access, approvalMode: parent.approvalMode ?? 'ask' } : access;
}

/**
 * Why forks on `chosen` (ids the request named; none: the chat's model) cannot start: one is retired where
 * the access sends it (models.ts `retiredToday`), so its first request would fail with a 404.
 */
export function retiredForkModel(parent: Pick<Session, 'header'>, chosen: readonly string[] | undefined, access: ModelAccess): string | undefined {
  for (const model of chosen && chosen.length > 0 ? chosen : [parent.header.settings.model]) {
    const day = retiredToday(model, access.provider?.name);
    if (day) return `${retiredModelText(model, day)}${chosen && chosen.length > 0 ? '' : ' A fork of this chat needs another model (the fork\'s model choice, or --model).'}`;
  }
  return undefined;
}
