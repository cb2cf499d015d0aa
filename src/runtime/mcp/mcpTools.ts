// A session's MCP tools: the `mcp__<server>__<tool>` definitions its header fixed at start, each run
// through the runtime's hub. Approval (docs/design.md §5): asked in ask and auto-edit mode unless the server is
// trusted (`fork.mcp.trusted`); a tool the server marks readOnlyHint is asked in ask mode only. In
// Restricted Mode an MCP tool counts as a command whatever its server says, so the policy refuses it.
import type { ToolCategory } from '../../common/approval';
import type { SessionHeader, ToolDefinition } from '../../common/transcript';
import type { Tool, ToolOutput } from '../tools/types';
import { mcpHub, parseMcpToolName } from './hub';
import type { McpHub } from './hub';
import { mapMcpContent } from './results';

export interface McpToolOptions {
  /** Restricted Mode (an untrusted workspace): every MCP call is refused, trusted server or not. */
  restricted?: boolean;
  hub?: McpHub;
}

export function mcpToolsOf(header: SessionHeader, options: McpToolOptions = {}): Tool[] {
  const hub = options.hub ?? mcpHub;
  return header.tools.flatMap(definition => {
    const parts = parseMcpToolName(definition.name);
    return parts ? [mcpTool(definition, parts.server, parts.tool, hub, options.restricted === true)] : [];
  });
}

function mcpTool(definition: ToolDefinition, server: string, tool: string, hub: McpHub, restricted: boolean): Tool {
  return {
    definition,
    get category(): ToolCategory {
      if (restricted) return 'exec';
      if (hub.isTrusted(server)) return 'read';
      return hub.isReadOnly(server, tool) ? 'edit' : 'exec';
    },
    describe(input: unknown): string {
      let args = '';
      try {
        args = JSON.stringify(input ?? {});
      } catch {
        args = '(unreadable input)';
      }
      return `MCP ${server}: ${tool} ${args.length > 160 ? args.slice(0, 160) + '…' : args}`;
    },
    async run(input, ctx): Promise<ToolOutput> {
      const result = await hub.call(server, hub.realToolName(server, tool), input, ctx.signal);
      if ('error' in result) return { content: result.error, isError: true };
      const blocks = mapMcpContent(Array.isArray(result.content) ? result.content : [], result.structuredContent);
      const text = blocks.map(b => (b.type === 'text' ? b.text : '')).join('\n');
      const hasImage = blocks.some(b => b.type === 'image');
      return { content: text, isError: result.isError === true, ...(hasImage ? { blocks } : {}) };
    },
  };
}
