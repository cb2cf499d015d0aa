// fork/start: the user (chat /fork, Fork from here, palette, panel, CLI) forks a session, in its own git
// worktree by default when the session works in a repository.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { parseForkTurns } from '../../common/forkTurns';
import { forkStart } from '../../common/protocol/forks';
import type { ForkStartParams } from '../../common/protocol/forks';
import type { ForkSummary } from '../../common/forks';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { ForkPointError } from '../fork/history/select';
import { BudgetError } from '../fork/forkContracts';
import { parseBudget } from '../../common/budget';
import { modelIdProblem } from '../../common/modelChoice';
import { MISSING_KEY_MESSAGE } from './send';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';
import { checkTextSize } from './textLimits';
import { asResponseError } from './worktreeErrors';
import { shortText } from '../../common/forkDisplay';

export function registerForkStart(ctx: RuntimeContext, client: ClientConnection): void {
  client.rpc.onRequest(forkStart.method, async (params: ForkStartParams): Promise<ForkSummary> => {
    const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);
    if (typeof params?.directive !== 'string' || params.directive.trim() === '') throw invalid('fork/start needs a non-empty directive.');
    checkTextSize('directive', params.directive);
    if (typeof params.sessionId !== 'string') throw invalid('fork/start needs a sessionId string.');
    if (params.atEntryId !== undefined && typeof params.atEntryId !== 'string') throw invalid('atEntryId must be a string.');
    if (params.name !== undefined && params.name !== null && typeof params.name !== 'string') {
      throw invalid(`name must be a string (got ${Array.isArray(params.name) ? 'an array' : typeof params.name}).`);
    }
    const turns = parseForkTurns(params.forkTurns, 'user');
    if (!turns.ok) throw invalid(turns.error);
    if (params.isolation !== undefined && params.isolation !== 'shared' && params.isolation !== 'worktree') throw invalid(`isolation must be "worktree" or "shared".`);
    const budget = params.budget === undefined ? undefined : parseBudget(params.budget);
    if (budget && !budget.ok) throw invalid(`budget: ${budget.error}`);
    const modelProblem = params.model === undefined || params.model === null ? undefined : modelIdProblem(params.model);
    if (modelProblem) throw invalid(modelProblem);
    const access = accessOf(client);
    if (!access) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
    try {
      // Held while its fork's worktree is made: idle eviction must not reload a second copy meanwhile.
      return await ctx.store.using(params.sessionId, parent => {
        if (parent.bootstrap) throw invalid('A fork cannot be forked; continue it with a message instead.');
        return ctx.forks.start({
          parent,
          kind: 'fork',
          directive: params.directive.trim(),
          turns: turns.value,
          atEntryId: params.atEntryId,
          // Absent: a worktree when the parent works in a git repository (DESIGN §4.8).
          isolation: params.isolation,
          origin: params.origin === 'message' ? 'message' : 'user',
          name: params.name?.trim() || defaultName(params.directive),
          budget: budget?.ok ? budget.value : undefined,
          // The parent's model unless another is asked for (then the fork starts with a cold cache).
          ...(params.model && params.model !== parent.header.settings.model ? { model: params.model } : {}),
        }, access);
      });
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof ForkPointError || error instanceof BudgetError) throw invalid(error.message);
      throw asResponseError(error);
    }
  });
}

/** The directive itself when short, else cut at a word (never mid-phrase after six words); the full text stays the directive. */
function defaultName(directive: string): string {
  return shortText(directive, 48);
}
