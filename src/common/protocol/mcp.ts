// MCP servers as the runtime sees them (docs/design.md §5): resolved by its client (the editor from
// `.vscode/mcp.json` + `fork.mcp.servers`, the CLI from the same files), trusted ones only. Env values
// and headers may hold secrets: like the key they live in the runtime's memory only.

export type McpServerType = 'stdio' | 'http' | 'sse';

export interface McpServerConfig {
  /** The name in the config; tools are called `mcp__<name>__<tool>` (name made API-safe). */
  name: string;
  type: McpServerType;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Listed in `fork.mcp.trusted`: its tools run without approval. */
  trusted?: boolean;
}

export type McpServerState = 'not-started' | 'starting' | 'running' | 'failed' | 'unconfigured';

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** Why it failed or stopped (the last error seen). */
  error?: string;
  /** Tools it offered when last listed. */
  tools?: number;
}
