// fork/start: the user (chat /fork, Fork from here, palette, panel, CLI) forks a session, in its own git
// worktree by default when the session works in a repository.
import { ResponseError } from 'vscode-jsonrpc/node';
import { forkStart } from '../../common/protocol/forks';
import type { ForkStartParams, ForkStartResult } from '../../common/protocol/forks';
import { launchPolicy } from '../policy';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { modelIdProblem } from '../../common/modelChoice';
import { MISSING_KEY_MESSAGE } from './send';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { checkStartParams, forkAccess, invalidParams, retiredForkModel } from './startParams';
import { TailParent } from '../fork/history/tailParent';
import type { ForkParent } from '../fork/history/createFork';

export function registerForkStart(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkStart, async (params: ForkStartParams): Promise<ForkStartResult> => {
    const invalid = invalidParams;
    const checked = checkStartParams('fork/start', params);
    if (params.isolation !== undefined && params.isolation !== 'shared' && params.isolation !== 'worktree') throw invalid(`isolation must be "worktree" or "shared".`);
    const modelProblem = params.model === undefined || params.model === null ? undefined : modelIdProblem(params.model);
    if (modelProblem) throw invalid(modelProblem);
    const configured = accessOf(client);
    if (!configured) throw new ResponseError(RuntimeErrorCode.missingKey, MISSING_KEY_MESSAGE);
    const startFrom = async (parent: ForkParent): Promise<ForkStartResult> => {
      const access = forkAccess(client, configured, parent);
      // A fork on a retired model (its own, or the chat's) would fail at its first request: refused by name.
      const retired = retiredForkModel(parent, typeof params.model === 'string' ? [params.model] : undefined, configured);
      if (retired) throw invalid(retired);
      const fork = await ctx.forks.start({
        parent,
        kind: 'fork',
        directive: checked.directive,
        turns: checked.turns,
        atEntryId: params.atEntryId,
        // Absent: a worktree when the parent works in a git repository (docs/design.md §4.8).
        isolation: params.isolation,
        origin: checked.origin,
        name: checked.name,
        budget: checked.budget,
        // The parent's model unless another is asked for (then the fork starts with a cold cache).
        ...(params.model && params.model !== parent.header.settings.model ? { model: params.model } : {}),
      }, access);
      return { ...fork, approvalMode: launchPolicy(access).approvalMode };
    };
    // An `all` fork of a chat not in memory names its history from the transcript's tail instead of
    // streaming it in first (docs/design.md §3): the answer does not wait on the parent's size.
    const tail = checked.turns === 'all' && params.atEntryId === undefined && !ctx.store.loaded(params.sessionId)
      ? TailParent.open(ctx.store, params.sessionId) : undefined;
    if (tail) return await startFrom(tail);
    // Held while its fork's worktree is made: idle eviction must not reload a second copy meanwhile.
    return await ctx.store.using(params.sessionId, async parent => {
      // A fork's own messages can be forked from once it stopped (Fork from here in its transcript, at
      // that message's checkpoint); a fork still running is continued with a message instead.
      if (parent.bootstrap && !ctx.forks.atRest(parent.id)) throw invalid('A fork can be forked only once it has stopped; wait for it, or continue it with a message.');
      return await startFrom(parent);
    });
  });
}
