// The parts of the MCP SDK the runtime uses, in one module that connection.ts imports dynamically: the
// bundle puts it in its own file (dist/lazy/mcp-sdk.js), loaded when the first MCP server starts.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
