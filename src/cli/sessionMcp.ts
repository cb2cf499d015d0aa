// MCP servers for a command that runs an existing session's tools (fork, send): the runtime keeps no MCP
// configuration on disk (env values and headers may hold secrets), so after a restart it has only what the
// clients supply. The CLI supplies what the session's chat was started with: the servers of the chat's folder.
import type { RuntimeClient } from '../client/rpcClient';
import { sendRequest } from '../common/protocol/endpoint';
import { sessionList } from '../common/protocol/runtime';
import type { SessionSummary } from '../common/protocol/runtime';

async function sessions(client: RuntimeClient): Promise<Map<string, SessionSummary>> {
  const { sessions: list } = await sendRequest(client.endpoint, sessionList, {});
  return new Map(list.map(s => [s.id, s]));
}

/**
 * The folder of the chat a session (or fork) descends from: its servers were resolved against that folder
 * (a fork's own root may be a worktree). Undefined for an unknown session (the command reports that).
 */
export async function chatRootOf(client: RuntimeClient, sessionId: string): Promise<string | undefined> {
  const byId = await sessions(client);
  let current = byId.get(sessionId);
  const seen = new Set<string>();
  while (current?.parentSessionId && byId.has(current.parentSessionId) && !seen.has(current.id)) {
    seen.add(current.id);
    current = byId.get(current.parentSessionId);
  }
  return current?.root;
}

/** After configure: the session's servers this CLI could not supply, named on stderr with what to do. */
export async function warnUnconfigured(client: RuntimeClient, sessionId: string): Promise<void> {
  const session = (await sessions(client)).get(sessionId);
  for (const server of session?.mcpServers ?? []) {
    if (server.state !== 'unconfigured') continue;
    process.stderr.write(
      `fork-agents: ${sessionId} uses MCP server ${server.name}, which is not configured here${server.error ? ` (${server.error})` : ''}; ` +
      'its tools fail until a client supplies it: add it to ~/.config/fork-agents/mcp.json, or pass --trust-mcp for a .vscode/mcp.json server\n',
    );
  }
}
