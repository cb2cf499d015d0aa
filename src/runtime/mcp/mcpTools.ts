// A session's MCP tools: the `mcp__<server>__<tool>` definitions its header fixed at start, each run
// through the runtime's hub. Approval (DESIGN §5): asked in ask and auto-edit mode unless the server is
// trusted (`fork.mcp.trusted`); a tool the server marks readOnlyHint is asked in ask mode only.
import type { ToolCategory } from '../../common/approval';
import type { SessionHeader, ToolDefinition } from '../../common/transcript';
import type { Tool, ToolOutput } from '../tools/types';
import { mcpHub, parseMcpToolName } from './hub';
import type { McpHub } from './hub';
import { mapMcpContent } from './results';

export function mcpToolsOf(header: SessionHeader, hub: McpHub = mcpHub): Tool[] {
  return header.tools.flatMap(definition => {
    const parts = parseMcpToolName(definition.name);
    return parts ? [mcpTool(definition, parts.server, parts.tool, hub)] : [];
  });
}

function mcpTool(definition: ToolDefinition, server: string, tool: string, hub: McpHub): Tool {
  return {
    definition,
    get category(): ToolCategory {
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
