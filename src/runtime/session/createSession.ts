// Starts a session: fixes its header (system prompt, tools, settings) and commits the startup entry.
import * as fs from 'node:fs';
import type { ModelSettings, SessionHeader, ToolDefinition } from '../../common/transcript';
import { renderStartupContext, renderSystemPrompt } from './systemPrompt';
import { ALL_TOOLS } from '../tools/registry';
import type { Session } from './session';
import { SessionStore } from './sessionStore';

export class BadRootError extends Error {}

export function resolveRoot(root: string): string {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    throw new BadRootError(`The workspace root ${JSON.stringify(root)} does not exist.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new BadRootError(`The workspace root ${JSON.stringify(root)} is not a folder.`);
  return real;
}

export interface SessionMcpTools { tools: ToolDefinition[]; servers: string[] }

export async function createSession(
  store: SessionStore,
  options: { root: string; title: string; settings: ModelSettings; mcp?: SessionMcpTools },
): Promise<Session> {
  const root = resolveRoot(options.root);
  const header: SessionHeader = {
    id: SessionStore.newSessionId(),
    createdAt: new Date().toISOString(),
    root,
    title: options.title.slice(0, 80),
    systemPrompt: renderSystemPrompt(),
    // MCP tools after the built-ins, sorted: fixed here, so every request and fork repeats them.
    tools: [...ALL_TOOLS.map(tool => tool.definition), ...(options.mcp?.tools ?? [])],
    settings: options.settings,
  };
  if (options.mcp && options.mcp.servers.length > 0) header.mcpServers = options.mcp.servers;
  const session = store.create(header);
  session.commit('startup', { role: 'user', content: [{ type: 'text', text: await renderStartupContext(root) }] });
  return session;
}
