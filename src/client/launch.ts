// Finds the runtime serving a store, starting a detached one when none answers (DESIGN §2).
// Shared by the extension host and the CLI; Node only, no vscode.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { runtimeLogPath, socketPathFor } from '../runtime/ipc/socketPath';

export interface LaunchOptions {
  storeDir: string;
  /** The bundled runtime entry (dist/runtime.js). */
  runtimeScript: string;
  /** Node binary; in VS Code desktop this is Electron run as Node. */
  nodePath?: string;
  /** Extra environment for a runtime this call starts (never the API key: that goes over the socket). */
  env?: NodeJS.ProcessEnv;
  idleExitMs?: number;
  connectTimeoutMs?: number;
}

export async function connectOrStart(options: LaunchOptions): Promise<net.Socket> {
  const socketPath = socketPathFor(options.storeDir);
  const existing = await tryConnect(socketPath);
  if (existing) return existing;
  startRuntime(options);
  const deadline = Date.now() + (options.connectTimeoutMs ?? 15_000);
  for (let delay = 25; Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
    await new Promise(resolve => setTimeout(resolve, delay));
    const socket = await tryConnect(socketPath);
    if (socket) return socket;
  }
  throw new Error(`The Fork Agents runtime did not start; see ${runtimeLogPath(options.storeDir)}`);
}

export function startRuntime(options: LaunchOptions): number | undefined {
  fs.mkdirSync(options.storeDir, { recursive: true });
  const logFd = fs.openSync(runtimeLogPath(options.storeDir), 'a');
  const args = [options.runtimeScript, '--store', options.storeDir];
  if (options.idleExitMs !== undefined) args.push('--idle-exit-ms', String(options.idleExitMs));
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, ELECTRON_RUN_AS_NODE: '1' };
  delete env.ANTHROPIC_API_KEY;
  const child = spawn(options.nodePath ?? process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd], env });
  child.unref();
  fs.closeSync(logFd);
  return child.pid;
}

function tryConnect(socketPath: string): Promise<net.Socket | undefined> {
  return new Promise(resolve => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}
