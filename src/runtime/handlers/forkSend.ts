// fork/send: continue a finished fork's own transcript with a message, or a fork paused at its budget
// (with a raised budget, with or without a message).
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { parseBudget } from '../../common/budget';
import { forkSend } from '../../common/protocol/forks';
import type { ClientConnection } from '../clientConnection';
import { accessOf } from '../runtimeContext';
import type { RuntimeContext } from '../runtimeContext';
import { checkTextSize } from './textLimits';

export function registerForkSend(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(forkSend, async params => {
    const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);
    const message = params?.message;
    if (message !== undefined && (typeof message !== 'string' || message.trim() === '')) throw invalid('fork/send: the message must not be empty.');
    if (message !== undefined) checkTextSize('message', message);
    if (message === undefined && params?.budget === undefined) throw invalid('fork/send needs a non-empty message (or, for a fork paused at its budget, a new budget).');
    const budget = params.budget === undefined ? undefined : parseBudget(params.budget);
    if (budget && !budget.ok) throw invalid(`budget: ${budget.error}`);
    return ctx.forks.send(params.forkId, message, accessOf(client), budget?.ok ? budget.value : undefined, params.loosenApproval === true);
  });
}
