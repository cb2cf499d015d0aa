// The runtime's MCP servers (DESIGN §5): one connection per configured server, shared by every session
// and fork. A new session's header fixes the tool definitions the servers offer at its start
// (`mcp__<server>__<tool>`, sorted); later calls go to whatever server of that name is configured then.
import type { McpServerConfig, McpServerStatus } from '../../common/protocol/mcp';
import type { ToolDefinition } from '../../common/transcript';
import { log } from '../log';
import { McpConnection, message } from './connection';
import type { FetchLike, McpCallResult, McpToolInfo } from './connection';

export const MCP_PREFIX = 'mcp__';

/** API-safe server name: letters, digits, `_` and `-`, no `__` (that separates server and tool). */
export function safeServerName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_') || 'server';
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${safeServerName(server)}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 128);
}

/** `mcp__<server>__<tool>` → its parts (the server part never holds `__`). */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf('__');
  return split > 0 ? { server: rest.slice(0, split), tool: rest.slice(split + 2) } : undefined;
}

export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  /** Each client's servers: the latest configuration of a name wins. */
  private readonly byClient = new Map<number, McpServerConfig[]>();
  fetchImpl?: FetchLike;
  /** Told every state change of a server (the runtime sends it to its clients as mcp/state). */
  onStatus?: (status: McpServerStatus) => void;

  configure(clientId: number, servers: readonly McpServerConfig[]): void {
    this.byClient.set(clientId, servers.map(s => ({ ...s })));
    for (const server of servers) {
      const key = safeServerName(server.name);
      const current = this.connections.get(key);
      if (current && sameServer(current.config, server)) {
        if (current.config.trusted !== server.trusted) current.config.trusted = server.trusted;
        continue;
      }
      // Changed: the old process stops; sessions keep their definitions and reach the new one.
      void current?.close();
      const connection = new McpConnection({ ...server }, this.fetchImpl);
      connection.onChange = () => {
        if (this.connections.get(key) === connection) this.onStatus?.(this.status(key));
      };
      this.connections.set(key, connection);
    }
  }

  /**
   * The definitions a new session fixes in its header: every server of `servers` started and listed
   * (in parallel), tools sorted by name. A server that fails is left out with its error (never fatal).
   */
  async definitionsFor(servers: readonly McpServerConfig[]): Promise<{ tools: ToolDefinition[]; servers: string[]; problems: string[] }> {
    const problems: string[] = [];
    const names: string[] = [];
    const listed = await Promise.all(servers.map(async server => {
      const connection = this.connections.get(safeServerName(server.name));
      if (!connection) return [];
      names.push(safeServerName(server.name));
      try {
        return (await connection.listTools()).map(tool => toDefinition(server.name, tool));
      } catch (error) {
        problems.push(`MCP server "${server.name}": ${message(error)}`);
        log(`MCP server ${server.name}: tools not listed: ${message(error)}`);
        return [];
      }
    }));
    const tools = listed.flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { tools, servers: names.sort(), problems };
  }

  /** What the session's tool runs; errors come back as clear messages, never throws. */
  async call(server: string, tool: string, args: unknown, signal: AbortSignal): Promise<McpCallResult | { error: string }> {
    const connection = this.connections.get(server);
    if (!connection) return { error: `MCP server "${server}" is not configured any more (or not in this client); its tool ${tool} cannot run.` };
    if (connection.crashUnreported) {
      // Said once, clearly; the next call starts it again.
      connection.crashUnreported = false;
      return { error: `MCP server "${server}" stopped: ${connection.lastError}. Its tool ${tool} did not run; the server is started again on the next call.` };
    }
    const crashesBefore = connection.crashes;
    try {
      return await connection.call(tool, args, signal);
    } catch (error) {
      if (signal.aborted) return { error: 'Cancelled.' };
      const stopped = connection.crashes !== crashesBefore;
      if (stopped) connection.crashUnreported = false;
      const why = stopped ? `stopped during the call: ${connection.lastError}; it is started again on the next call` : message(error);
      return { error: `MCP server "${server}" tool ${tool} failed: ${why}.` };
    }
  }

  /** readOnlyHint as the server gave it when last listed. */
  isReadOnly(server: string, tool: string): boolean {
    return this.connections.get(server)?.tools?.find(t => t.name === tool || t.name.replace(/[^A-Za-z0-9_-]/g, '_') === tool)?.annotations?.readOnlyHint === true;
  }

  isTrusted(server: string): boolean {
    return this.connections.get(server)?.config.trusted === true;
  }

  /** The real tool name behind a (sanitised) one. */
  realToolName(server: string, tool: string): string {
    return this.connections.get(server)?.tools?.find(t => t.name.replace(/[^A-Za-z0-9_-]/g, '_') === tool)?.name ?? tool;
  }

  status(server: string): McpServerStatus {
    const connection = this.connections.get(server);
    if (!connection) return { name: server, state: 'unconfigured' };
    return { name: server, state: connection.state, ...(connection.lastError ? { error: connection.lastError } : {}), ...(connection.tools ? { tools: connection.tools.length } : {}) };
  }

  pidOf(server: string): number | undefined {
    return this.connections.get(server)?.pid();
  }

  /** The runtime is exiting: no server process outlives it. */
  killAll(): void {
    for (const connection of this.connections.values()) connection.kill();
  }
}

function toDefinition(server: string, tool: McpToolInfo): ToolDefinition {
  const schema = tool.inputSchema && tool.inputSchema.type === 'object' ? tool.inputSchema : { type: 'object', properties: {} };
  return { name: mcpToolName(server, tool.name), description: tool.description ?? '', input_schema: schema as ToolDefinition['input_schema'] };
}

function sameServer(a: McpServerConfig, b: McpServerConfig): boolean {
  const strip = ({ trusted: _t, ...rest }: McpServerConfig) => JSON.stringify(rest);
  return strip(a) === strip(b);
}

/** One hub per runtime process. */
export const mcpHub = new McpHub();
