// The real @modelcontextprotocol/server-everything from npm, as the MCP tests start it: over stdio (a
// child of the runtime) or streamable HTTP (a child of the test), and what its results look like.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import type { McpServerConfig } from '../../src/common/protocol/mcp';
import type { ReceivedRequest } from '../fakes/anthropicServer';

export const EVERYTHING = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export const stdioServer = (extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ name: 'everything', type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra });

export const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

export const toolResults = (r: ReceivedRequest) =>
  r.body.messages.at(-1).content.filter((b: { type: string }) => b.type === 'tool_result') as { content: unknown; is_error?: boolean }[];

export const resultText = (block: { content: unknown }) =>
  typeof block.content === 'string' ? block.content : (block.content as { type: string; text?: string }[]).map(b => b.text ?? `[${b.type}]`).join('');

export interface HttpEverything { child: ChildProcess; port: number; close(): void }

/** server-everything's streamable HTTP (`/mcp`) or SSE (`/sse`) transport on a free port (it listens on every interface). */
export async function startHttpEverything(transport: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<HttpEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', chunk => {
      text += String(chunk);
      if (/(listening|running) on port/.test(text)) resolve();
    });
    child.once('exit', code => reject(new Error(`server-everything exited ${code}: ${text}`)));
  });
  return { child, port, close: () => void child.kill() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The pid of the runtime's server-everything child (a stdio server). */
export function serverPid(runtimePid: number): number {
  const pids = serverPids(runtimePid);
  assert.ok(pids.length > 0, `no server-everything child of ${runtimePid}`);
  return pids[0];
}

export function serverPids(runtimePid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(runtimePid)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when the runtime has no children.
  }
  return out.split('\n').filter(l => l.includes('server-everything')).map(l => Number(l.trim().split(/\s+/)[0]));
}
