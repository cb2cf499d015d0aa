// The CLI's MCP servers (docs/design.md §5): the user's own from ~/.config/fork-agents/mcp.json (`servers`, VS
// Code's format), and the repository's .vscode/mcp.json — code a clone can run, so those start only with
// --trust-mcp or when their exact command line / URL is in that file's `trustedWorkspaceServers`.
// `${input:id}` values come from the environment: FORK_MCP_INPUT_<ID>.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { describeEntry, parseMcpConfig, readWorkspaceMcp, resolveEntry } from '../client/mcpConfig';
import type { McpEntry, McpFile } from '../client/mcpConfig';
import type { McpServerConfig } from '../common/protocol/mcp';

export interface UserMcpFile extends McpFile {
  /** Servers whose tools run without approval (like `fork.mcp.trusted`). */
  trusted: string[];
  /** Repository servers allowed to start, by their exact command line or URL. */
  trustedWorkspaceServers: string[];
}

export function userMcpPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(os.homedir(), '.config');
  return path.join(base, 'fork-agents', 'mcp.json');
}

export function readUserMcp(file: string): UserMcpFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { servers: [], inputs: [], problems: [], trusted: [], trustedWorkspaceServers: [] };
  }
  const parsed = parseMcpConfig(text, file);
  let raw: Record<string, unknown> = {};
  try {
    raw = (fromJsonText(text) ?? {}) as Record<string, unknown>;
  } catch {
    // parseMcpConfig already reported it.
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return { ...parsed, trusted: strings(raw.trusted), trustedWorkspaceServers: strings(raw.trustedWorkspaceServers) };
}

function fromJsonText(text: string): unknown {
  // The same JSONC reading as parseMcpConfig, for the two CLI-only lists.
  return parseJsonc(text, [], { allowTrailingComma: true });
}

export interface CliMcp { servers: McpServerConfig[]; problems: string[]; skipped: string[] }

export async function cliMcpServers(root: string, trustRepo: boolean, env: NodeJS.ProcessEnv = process.env): Promise<CliMcp> {
  const user = readUserMcp(userMcpPath(env));
  const repo = readWorkspaceMcp(root);
  const problems = [...user.problems, ...repo.problems];
  const skipped: string[] = [];
  const chosen: { entry: McpEntry; file: McpFile }[] = user.servers.map(entry => ({ entry, file: user }));
  for (const entry of repo.servers) {
    if (chosen.some(c => c.entry.name === entry.name)) continue;
    if (trustRepo || user.trustedWorkspaceServers.includes(describeEntry(entry))) chosen.push({ entry, file: repo });
    else skipped.push(`${entry.name} (${describeEntry(entry)})`);
  }
  const servers: McpServerConfig[] = [];
  for (const { entry, file } of chosen) {
    try {
      servers.push(await resolveEntry(entry, {
        workspaceFolder: root, env, inputs: file.inputs,
        input: async (_input, id) => env[`FORK_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`],
      }, user.trusted.includes(entry.name)));
    } catch (error) {
      problems.push(`MCP server "${entry.name}" left out: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { servers, problems, skipped };
}
