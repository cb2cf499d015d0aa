// The agent's tool set in its fixed order. The definitions are part of the prompt-cache prefix
// (tools → system → messages), so they are constants: same bytes in every session and every fork.
import { agentTool } from './agent';
import { bashTool } from './bash';
import { editFileTool } from './edit_file';
import { grepTool } from './grep';
import { listFilesTool } from './list_files';
import { readFileTool } from './read_file';
import { writeFileTool } from './write_file';
import { deepFreeze } from '../../common/transcript';
import type { ToolDefinition } from '../../common/transcript';
import type { Tool, ToolContext, ToolOutput } from './types';

// Frozen so no caller can, say, set cache_control on a shared definition in place; copy before decorating.
for (const tool of [readFileTool, listFilesTool, grepTool, writeFileTool, editFileTool, bashTool, agentTool]) deepFreeze(tool.definition);

export const ALL_TOOLS: readonly Tool[] = Object.freeze([readFileTool, listFilesTool, grepTool, writeFileTool, editFileTool, bashTool, agentTool]);

export function findTool(name: string): Tool | undefined {
  return ALL_TOOLS.find(tool => tool.definition.name === name);
}

/** Fresh, mutable copies of the definitions, in order, ready to go into a request or a session header. */
export function toolDefinitions(tools: readonly Tool[] = ALL_TOOLS): ToolDefinition[] {
  return tools.map(tool => structuredClone(tool.definition) as ToolDefinition);
}

/** Runs a tool, turning any thrown error into an error result the model can read, never a crash. */
export async function runTool(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolOutput> {
  try {
    return await tool.run(input, ctx);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { content: message || `${tool.definition.name} failed.`, isError: true };
  }
}
