// Finds the runtime serving a store, starting a detached one when none answers (docs/design.md §2).
// Shared by the extension host and the CLI; Node only, no vscode.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { checkOwnSocket, ensurePrivateDir, openPrivateFile, readPrivateFile } from '../ipc/privateFs';
import { DetachedStartError, spawnDetached } from './spawnDetached';
import { runtimeInfoPath, runtimeLogPath, runtimeTokenPath, separateSocketDir, socketPathFor } from '../ipc/socketPath';

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

/** How each socket's client reads the token of the runtime it reached (read again on a retry). */
const tokenReaders = new WeakMap<net.Socket, () => string | undefined>();

/**
 * A connection to the runtime serving the store. Before connecting, the socket must be this user's own
 * socket in a folder only this user can enter; someone else's socket or folder is refused.
 */
export async function connectOrStart(options: LaunchOptions): Promise<net.Socket> {
  const socketPath = preparePrivatePlaces(options.storeDir);
  const existing = (await tryConnect(socketPath, options.storeDir)) ?? (await tryRecordedSocket(socketPath, options.storeDir));
  if (existing) return existing;
  try {
    return (await startRuntime(options, () => tryConnect(socketPath, options.storeDir))).value;
  } catch (error) {
    if (error instanceof DetachedStartError) throw new Error(`The Fork Agents runtime did not start; see ${runtimeLogPath(options.storeDir)}`);
    throw error;
  }
}

/** The token to present at `initialize` on this socket: the runtime's 0600 token file; undefined if unreadable. */
export function runtimeTokenFor(socket: net.Socket): string | undefined {
  return tokenReaders.get(socket)?.();
}

export function readRuntimeToken(storeDir: string): string | undefined {
  return readPrivateFile(runtimeTokenPath(storeDir))?.trim() || undefined;
}

/**
 * A runtime of an older version listens where it said in runtime.json (the shared temp folder in
 * earlier versions). Reaching it lets the protocol check make it step aside (or report its running forks) instead
 * of a second runtime serving the same store. Only a socket of this user's is tried; anything else is ignored.
 */
async function tryRecordedSocket(socketPath: string, storeDir: string): Promise<net.Socket | undefined> {
  let recorded: unknown;
  try {
    // In the store, which was just checked to be this user's; an older runtime wrote it 0644 (not secret).
    recorded = (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { socket?: unknown } | null)?.socket;
  } catch {
    return undefined;
  }
  if (typeof recorded !== 'string' || recorded === socketPath || !path.isAbsolute(recorded)) return undefined;
  try {
    return await tryConnect(recorded, storeDir);
  } catch {
    return undefined;
  }
}

/** The store and the socket's folder, created 0700 or checked; returns the socket path. */
function preparePrivatePlaces(storeDir: string): string {
  ensurePrivateDir(storeDir);
  const socketDir = separateSocketDir(storeDir);
  if (socketDir) ensurePrivateDir(socketDir, { followSymlink: false });
  return socketPathFor(storeDir);
}

/** Starts a detached runtime for the store and waits until `ready` (its socket accepts) gives a value. */
function startRuntime<T>(options: LaunchOptions, ready: () => Promise<T | undefined>): Promise<{ value: T; pid?: number }> {
  ensurePrivateDir(options.storeDir);
  const args = [options.runtimeScript, '--store', options.storeDir];
  if (options.idleExitMs !== undefined) args.push('--idle-exit-ms', String(options.idleExitMs));
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, ELECTRON_RUN_AS_NODE: '1' };
  delete env.ANTHROPIC_API_KEY;
  return spawnDetached({
    command: options.nodePath ?? process.execPath, args, env, ready,
    logFd: openPrivateFile(runtimeLogPath(options.storeDir), 'a'),
    timeoutMs: options.connectTimeoutMs ?? 15_000,
    exitIsFailure: false,
  });
}

function tryConnect(socketPath: string, storeDir: string): Promise<net.Socket | undefined> {
  if (checkOwnSocket(socketPath) === 'missing') return Promise.resolve(undefined);
  return new Promise(resolve => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      tokenReaders.set(socket, () => readRuntimeToken(storeDir));
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}
