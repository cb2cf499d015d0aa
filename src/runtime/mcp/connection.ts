// One MCP server, reached with @modelcontextprotocol/sdk's client: started on first use, its tools listed,
// calls made; when it exits or its connection drops, the error is kept and the next call starts it again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig, McpServerState } from '../../common/protocol/mcp';
import { log } from '../log';

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

export interface McpCallResult { content: unknown[]; isError?: boolean; structuredContent?: unknown }

/** Fetch used for http/sse servers (the proxy-aware one when a proxy is configured). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export class McpConnection {
  private current: McpServerState = 'not-started';
  /** Called after the state (or the tools listed) changed: the runtime tells its clients (mcp/state). */
  onChange?: () => void;
  lastError?: string;
  /** It stopped on its own and no call has reported that yet. */
  crashUnreported = false;
  crashes = 0;
  /** Set when the hub stopped it (removed or changed configuration): why calls in flight ended. */
  stoppedWhy?: string;
  tools?: McpToolInfo[];
  private client?: Client;
  private transport?: Transport;
  private connecting?: Promise<Client>;
  private stderrTail = '';

  /** `fetchImpl`: for http/sse servers, asked at each request (the proxy may change while it runs). */
  constructor(readonly config: McpServerConfig, private readonly fetchImpl?: FetchLike) {}

  get state(): McpServerState {
    return this.current;
  }

  set state(next: McpServerState) {
    if (next === this.current) return;
    this.current = next;
    this.onChange?.();
  }

  /** The server's tools (all pages), starting it if needed. */
  async listTools(): Promise<McpToolInfo[]> {
    const client = await this.connect();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown>, annotations: tool.annotations });
      cursor = page.nextCursor;
    } while (cursor);
    const changed = tools.length !== this.tools?.length;
    this.tools = tools;
    if (changed) this.onChange?.();
    return tools;
  }

  async call(tool: string, args: unknown, signal: AbortSignal): Promise<McpCallResult> {
    const client = await this.connect();
    const result = await client.callTool({ name: tool, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { signal, timeout: 10 * 60_000, resetTimeoutOnProgress: true });
    return result as McpCallResult;
  }

  /** The process id of a stdio server while it runs. */
  pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? this.transport.pid ?? undefined : undefined;
  }

  /** Ends the connection (a stdio server's process: stdin closed, then SIGTERM, then SIGKILL — the SDK's order). */
  async close(why?: string): Promise<void> {
    const client = this.client;
    const connecting = this.connecting;
    this.client = undefined;
    this.connecting = undefined;
    if (why) this.stoppedWhy = why;
    if (this.state === 'running' || this.state === 'starting') this.state = 'not-started';
    // Safe to drop: stopping a server whose transport already failed: it is stopped either way.
    await client?.close().catch(() => undefined);
    // A start under way when it was stopped: end what it started too.
    // Safe to drop: a start that failed has nothing to close; its failure was reported by the start itself.
    if (connecting) await connecting.then(started => started.close(), () => undefined).catch(() => undefined);
    this.transport = undefined;
  }

  /** Synchronous, for a runtime that is exiting: a stdio server must not outlive it. */
  kill(): void {
    const pid = this.pid();
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  }

  private connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.start().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async start(): Promise<Client> {
    const restarting = this.state === 'failed';
    this.state = 'starting';
    const transport = this.createTransport();
    const client = new Client({ name: 'fork-agents', version: '0.1.0' });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.crashUnreported = true;
      this.crashes++;
      const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
      this.lastError = `the server stopped${tail ? ` (stderr: ${tail})` : ''}`;
      // After the error: the state change is what clients hear about (mcp/state), with its reason.
      this.state = 'failed';
      log(`MCP server ${this.config.name}: ${this.lastError}`);
    };
    try {
      await client.connect(transport);
    } catch (error) {
      this.lastError = `could not start: ${message(error)}`;
      this.state = 'failed';
      // Safe to drop: already failed (reported just above): closing is best effort.
      await client.close().catch(() => undefined);
      throw new Error(`MCP server "${this.config.name}" ${this.lastError}`);
    }
    this.transport = transport;
    if (this.stoppedWhy) return client; // stopped while starting: close() ends it
    this.client = client;
    this.state = 'running';
    log(`MCP server ${this.config.name} ${restarting ? 'restarted' : 'started'} (${this.config.type})`);
    return client;
  }

  private createTransport(): Transport {
    const config = this.config;
    if (config.type === 'stdio') {
      const transport = new StdioClientTransport({
        command: config.command ?? '', args: config.args ?? [], env: config.env, cwd: config.cwd, stderr: 'pipe',
      });
      this.stderrTail = '';
      transport.stderr?.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000)));
      return transport;
    }
    const url = new URL(config.url ?? '');
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    const fetch = this.fetchImpl;
    return config.type === 'sse'
      ? new SSEClientTransport(url, { requestInit, ...(fetch ? { fetch } : {}) })
      : new StreamableHTTPClientTransport(url, { requestInit, ...(fetch ? { fetch } : {}) });
  }
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
