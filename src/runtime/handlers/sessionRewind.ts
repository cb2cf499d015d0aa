// session/rewind: a chat's files and conversation back to an entry (checkpoint/rewind.ts), or the latest
// rewind undone. Never while the chat's turn (or the fork's run) runs.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { sessionRewind } from '../../common/protocol/checkpoints';
import type { RewindParams, RewindResult } from '../../common/protocol/checkpoints';
import { RuntimeErrorCode } from '../../common/protocol/runtime';
import { RewindError, rewindSession } from '../checkpoint/rewind';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerSessionRewind(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionRewind, async (params: RewindParams): Promise<RewindResult> => {
    const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);
    if (typeof params?.sessionId !== 'string') throw invalid('session/rewind needs a sessionId string.');
    if (params.undo !== undefined && typeof params.undo !== 'boolean') throw invalid('undo must be true or false.');
    if (!params.undo && typeof params.atEntryId !== 'string') throw invalid('session/rewind needs atEntryId (or undo: true).');
    if (params.undo && params.atEntryId !== undefined) throw invalid('Give either atEntryId or undo, not both.');
    for (const key of ['code', 'conversation', 'confirm'] as const) {
      if (params[key] !== undefined && typeof params[key] !== 'boolean') throw invalid(`${key} must be true or false.`);
    }
    const neither = params.code === undefined && params.conversation === undefined;
    const code = neither || params.code === true;
    const conversation = neither || params.conversation === true;
    if (!code && !conversation) throw invalid('Nothing to rewind: code and conversation are both false.');
    if (ctx.turns.isRunning(params.sessionId)) throw new ResponseError(RuntimeErrorCode.busy, 'A turn is running in this session; wait for it or cancel it before rewinding.');
    try {
      return await ctx.store.using(params.sessionId, session => {
        // A fork's runs are checkpointed in its own folder like a chat's turns: it rewinds the same, once stopped.
        if (session.bootstrap && !ctx.forks.atRest(session.id)) throw new ResponseError(RuntimeErrorCode.busy, `Fork ${session.id} is running; wait for it or cancel it before rewinding.`);
        // Claimed as a turn, so no prompt starts while the files are being put back.
        return ctx.turns.run(session.id, () => rewindSession(ctx.store.storeDir, session, {
          atEntryId: params.atEntryId, undo: params.undo === true, code, conversation, confirm: params.confirm === true,
        }));
      });
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof RewindError) throw invalid(error.message);
      throw error;
    }
  });
}
