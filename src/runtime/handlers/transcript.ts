// session/transcript: the header and active history of one session.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { sessionTranscript } from '../../common/protocol/runtime';
import type { TranscriptResult } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import type { RuntimeContext } from '../runtimeContext';
import { SessionNotFoundError } from '../session/sessionStore';

export function registerTranscript(ctx: RuntimeContext, client: ClientConnection): void {
  client.rpc.onRequest(sessionTranscript.method, async (params: { sessionId: string }): Promise<TranscriptResult> => {
    try {
      const session = await ctx.store.get(params.sessionId);
      return { header: session.header, entries: [...session.history()], running: ctx.turns.isRunning(session.id) };
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
  });
}
