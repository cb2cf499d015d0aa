// session/list: every session in the store, optionally only those rooted at one folder.
import { sessionList } from '../../common/protocol/runtime';
import type { SessionSummary } from '../../common/protocol/runtime';
import type { ClientConnection } from '../clientConnection';
import { mcpHub } from '../mcp/hub';
import type { RuntimeContext } from '../runtimeContext';

export function registerList(ctx: RuntimeContext, client: ClientConnection): void {
  client.handle(sessionList, params => {
    const sessions: SessionSummary[] = ctx.store
      .listHeaders()
      .filter(header => !params?.root || header.root === params.root)
      .map(header => ({
        id: header.id,
        title: header.title,
        root: header.root,
        createdAt: header.createdAt,
        running: ctx.turns.isRunning(header.id),
        parentSessionId: header.parent?.sessionId,
        ...(header.mcpServers?.length ? { mcpServers: header.mcpServers.map(name => mcpHub.status(name)) } : {}),
      }));
    return { sessions };
  });
}
