// The runtime's MCP servers (docs/design.md §5): one connection per configured server, shared by every session
// and fork. A new session's header fixes the tool definitions the servers offer at its start
// (`mcp__<server>__<tool>`, sorted); later calls go to whatever server of that name is configured then.
// Configurations come from the clients (runtime/configure) and are never written to disk (env and headers
// may hold secrets): after a restart a call waits, bounded, for a client to supply its server. A server a
// client drops from its list is stopped; a changed entry is replaced and starts again on its next use.
import type { McpServerConfig, McpServerStatus } from '../../common/protocol/mcp';
import type { ProxySettings } from '../../common/protocol/runtime';
import type { ToolDefinition } from '../../common/transcript';
import { log } from '../log';
import { proxyFetch } from '../proxyFetch';
import { McpConnection, message } from './connection';
import type { FetchLike, McpCallResult, McpToolInfo } from './connection';

export const MCP_PREFIX = 'mcp__';

/** API-safe server name: letters, digits, `_` and `-`, no `__` (that separates server and tool). */
export function safeServerName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_') || 'server';
}

/** A tool's name as it stands in `mcp__<server>__<tool>` (the API allows only these characters). */
function safeToolName(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${safeServerName(server)}__${safeToolName(tool)}`.slice(0, 128);
}

/** `mcp__<server>__<tool>` → its parts (the server part never holds `__`). */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf('__');
  return split > 0 ? { server: rest.slice(0, split), tool: rest.slice(split + 2) } : undefined;
}

/** How long a call to a server no client has configured yet waits for one; FORK_AGENTS_MCP_CONFIG_WAIT_MS overrides it. */
export const MCP_CONFIG_WAIT_MS = 2 * 60_000;

export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  /** Each client's servers as it last configured them (while it is connected). */
  private readonly byClient = new Map<number, McpServerConfig[]>();
  /** Each client's proxy: a server's HTTP traffic goes through the proxy of the client whose entry it runs. */
  private readonly proxies = new Map<number, ProxySettings | undefined>();
  private readonly owner = new Map<string, number>();
  /** Servers a configuration dropped, and why: their calls fail at once. */
  private readonly removed = new Map<string, string>();
  private waiting: (() => void)[] = [];
  readonly configWaitMs: number;
  /** Told every state change of a server (the runtime sends it to its clients as mcp/state). */
  onStatus?: (status: McpServerStatus) => void;

  constructor(configWaitMs?: number) {
    const fromEnv = Number(process.env.FORK_AGENTS_MCP_CONFIG_WAIT_MS);
    this.configWaitMs = configWaitMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : MCP_CONFIG_WAIT_MS);
  }

  /**
   * A client's runtime/configure. `servers` undefined: only its proxy changed. A server this client had and
   * no longer lists (and no other connected client lists) is stopped; a changed entry is replaced, the new
   * one started on its next use. Sessions keep the definitions their header fixed either way.
   */
  configure(clientId: number, servers: readonly McpServerConfig[] | undefined, proxy?: ProxySettings): void {
    if (proxy !== undefined) this.proxies.set(clientId, proxy);
    if (!servers) return;
    const previous = this.byClient.get(clientId) ?? [];
    this.byClient.set(clientId, servers.map(s => ({ ...s })));
    for (const server of servers) this.apply(clientId, server);
    const listed = new Set(servers.map(s => safeServerName(s.name)));
    for (const old of previous) {
      const key = safeServerName(old.name);
      if (listed.has(key)) continue;
      const other = this.listedElsewhere(clientId, key);
      if (other) this.apply(other.clientId, other.server);
      else this.stop(key, 'removed from the configuration');
    }
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** A client disconnected: its list no longer keeps servers alive, but nothing stops (its forks may run on). */
  forget(clientId: number): void {
    this.byClient.delete(clientId);
    if (![...this.owner.values()].includes(clientId)) this.proxies.delete(clientId);
  }

  private apply(clientId: number, server: McpServerConfig): void {
    const key = safeServerName(server.name);
    this.removed.delete(key);
    const before = this.owner.get(key);
    this.owner.set(key, clientId);
    if (before !== undefined && before !== clientId && !this.byClient.has(before)) this.forget(before);
    const current = this.connections.get(key);
    if (current && sameServer(current.config, server)) {
      if (current.config.trusted !== server.trusted) current.config.trusted = server.trusted;
      return;
    }
    // Changed: the old process ends now; the new entry starts on its next use.
    if (current) void current.close('its configuration changed');
    const connection = new McpConnection({ ...server }, (url, init) => this.fetchFor(key)(url, init));
    connection.onChange = () => {
      if (this.connections.get(key) === connection) this.onStatus?.(this.status(key));
    };
    this.connections.set(key, connection);
  }

  private listedElsewhere(clientId: number, key: string): { clientId: number; server: McpServerConfig } | undefined {
    for (const [id, servers] of this.byClient) {
      const server = id === clientId ? undefined : servers.find(s => safeServerName(s.name) === key);
      if (server) return { clientId: id, server };
    }
    return undefined;
  }

  private stop(key: string, why: string): void {
    const connection = this.connections.get(key);
    if (!connection) return;
    this.connections.delete(key);
    this.owner.delete(key);
    this.removed.set(key, why);
    log(`MCP server ${key}: ${why}; stopping it`);
    void connection.close(why);
    this.onStatus?.(this.status(key));
  }

  private fetchFor(key: string): FetchLike {
    const owner = this.owner.get(key);
    return proxyFetch(owner === undefined ? undefined : this.proxies.get(owner)) ?? ((url, init) => fetch(url, init));
  }

  /** A server no client has configured in this runtime yet (it restarted): wait for one, bounded. */
  private async configured(server: string, signal: AbortSignal): Promise<McpConnection | undefined> {
    const deadline = Date.now() + this.configWaitMs;
    for (;;) {
      const connection = this.connections.get(server);
      if (connection || this.removed.has(server) || signal.aborted) return connection;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>(resolve => {
        const timer = setTimeout(() => done(), left);
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.waiting = this.waiting.filter(w => w !== done);
          resolve();
        };
        this.waiting.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
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
    const connection = this.connections.get(server) ?? await this.configured(server, signal);
    if (signal.aborted) return { error: 'Cancelled.' };
    if (!connection) return { error: this.unavailable(server, tool) };
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
      if (connection.stoppedWhy) return { error: `MCP server "${server}" was stopped during the call (${connection.stoppedWhy}); its tool ${tool} did not finish.` };
      const stopped = connection.crashes !== crashesBefore;
      if (stopped) connection.crashUnreported = false;
      const why = stopped ? `stopped during the call: ${connection.lastError}; it is started again on the next call` : message(error);
      return { error: `MCP server "${server}" tool ${tool} failed: ${why}.` };
    }
  }

  /** Says what to do: where the configuration comes from (it is never written to disk; it may hold secrets). */
  private unavailable(server: string, tool: string): string {
    const removed = this.removed.get(server);
    if (removed) {
      return `MCP server "${server}" was ${removed}; its tool ${tool} cannot run. To use it again, add it back: ` +
        'fork.mcp.servers or a trusted .vscode/mcp.json in the editor, ~/.config/fork-agents/mcp.json (or --trust-mcp for a .vscode/mcp.json server) in the CLI.';
    }
    const wait = this.configWaitMs < 1000 ? `${this.configWaitMs} ms` : `${Math.round(this.configWaitMs / 1000)} s`;
    return `MCP server "${server}" is not configured in this runtime (it was restarted, and no client connected since has supplied it; ` +
      `waited ${wait}): its tool ${tool} did not run. MCP configuration lives with the clients, never on disk: open the workspace in the editor, ` +
      'or run fork-agents fork/send/chat for this session with the server configured (~/.config/fork-agents/mcp.json, or --trust-mcp for a .vscode/mcp.json server).';
  }

  /** readOnlyHint as the server gave it when last listed. */
  isReadOnly(server: string, tool: string): boolean {
    return this.listedTool(server, tool)?.annotations?.readOnlyHint === true;
  }

  isTrusted(server: string): boolean {
    return this.connections.get(server)?.config.trusted === true;
  }

  /** The real tool name behind a (sanitised) one. */
  realToolName(server: string, tool: string): string {
    return this.listedTool(server, tool)?.name ?? tool;
  }

  /** The server's tool (as last listed) behind a name in `mcp__<server>__<tool>` form. */
  private listedTool(server: string, tool: string): McpToolInfo | undefined {
    return this.connections.get(server)?.tools?.find(t => safeToolName(t.name) === tool);
  }

  status(server: string): McpServerStatus {
    const connection = this.connections.get(server);
    if (!connection) return { name: server, state: 'unconfigured', ...(this.removed.has(server) ? { error: this.removed.get(server) } : {}) };
    // A server running again no longer reports the error of its earlier crash (the call that met it did).
    const error = connection.state === 'running' ? undefined : connection.lastError;
    return { name: server, state: connection.state, ...(error ? { error } : {}), ...(connection.tools ? { tools: connection.tools.length } : {}) };
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
