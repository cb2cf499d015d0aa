// The current chat's MCP servers: one line each — name, state, tool count, and why it
// failed. The names and errors come from configuration and server processes: text only, like everything.
import type { McpServerStatus } from '../src/common/protocol/mcp';
import { h, icon } from './dom';

const STATES: Record<McpServerStatus['state'], { label: string; icon: string }> = {
  'running': { label: 'running', icon: 'pass' },
  'starting': { label: 'starting', icon: 'loading' },
  // Started lazily, and stopped again when its configuration changed: it starts on the next call.
  'not-started': { label: 'stopped', icon: 'circle-slash' },
  'failed': { label: 'failed', icon: 'error' },
  'unconfigured': { label: 'not configured in this window', icon: 'question' },
};

export class McpServerList {
  readonly el = h('div', { class: 'mcp', hidden: true });
  private readonly list = h('ul', { class: 'mcp-servers', 'aria-label': 'MCP servers' });

  constructor() {
    this.el.append(h('h3', { class: 'mcp-title' }, 'MCP servers'), this.list);
  }

  set(servers: readonly McpServerStatus[]): void {
    this.el.hidden = servers.length === 0;
    this.list.replaceChildren(...servers.map(server => row(server)));
  }
}

function row(server: McpServerStatus): HTMLElement {
  const state = STATES[server.state] ?? { label: server.state, icon: 'circle' };
  const tools = server.tools === undefined ? '' : ` · ${server.tools} tool${server.tools === 1 ? '' : 's'}`;
  return h('li', { class: 'mcp-server', 'data-state': server.state, 'data-server': server.name },
    icon(state.icon, server.state === 'starting' ? 'codicon-modifier-spin' : ''),
    h('span', { class: 'mcp-name' }, server.name),
    h('span', { class: 'mcp-state' }, `${state.label}${tools}`),
    server.state === 'failed' && server.error ? h('div', { class: 'mcp-error' }, server.error) : undefined);
}
