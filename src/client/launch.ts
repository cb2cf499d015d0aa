// Finds the runtime serving a store, starting a detached one when none answers (docs/design.md §2).
// Shared by the extension host and the CLI; Node only, no vscode.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { PrivatePathError, checkOwnSocket, ensureStoreDir, openPrivateFile, readPrivateFile } from '../ipc/privateFs';
import { ensurePrivateFolder, openPrivateFolder } from '../ipc/socketFolder';
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
  /** Told when the runtime had to serve from a fallback folder (someone else holds the predictable one). */
  onNotice?: (message: string) => void;
}

/** How each socket's client reads the token of the runtime it reached (read again on a retry). */
const tokenReaders = new WeakMap<net.Socket, () => string | undefined>();

/**
 * A connection to the runtime serving the store. The socket must be this user's own, in a folder only this
 * user can enter, checked and connected through one handle (src/ipc/socketFolder.ts); someone else's socket
 * or folder is refused. When another user holds the predictable per-user folder, the runtime serves from a
 * fresh private folder it records in the store, and `onNotice` is told.
 */
export async function connectOrStart(options: LaunchOptions): Promise<net.Socket> {
  ensureStoreDir(options.storeDir);
  const known = () => connectKnown(options.storeDir, options.onNotice);
  const existing = await known();
  if (existing) return existing;
  try {
    return (await startRuntime(options, known)).value;
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
 * The predictable socket first (its separate folder created 0700 when missing); then the socket runtime.json
 * names: a runtime that found the predictable folder held by someone else, or one of an older version.
 */
async function connectKnown(storeDir: string, onNotice: ((message: string) => void) | undefined): Promise<net.Socket | undefined> {
  const predicted = socketPathFor(storeDir);
  const separate = separateSocketDir(storeDir);
  let refused: string | undefined;
  try {
    const socket = await tryConnect(predicted, storeDir, { create: separate !== undefined });
    if (socket) return socket;
  } catch (error) {
    // Only a separate folder in a shared place can be someone else's for a reason other than a broken store.
    if (!(error instanceof PrivatePathError) || !separate) throw error;
    refused = error.message;
  }
  const recorded = await tryRecordedSocket(predicted, storeDir);
  if (recorded && refused) onNotice?.(`${refused} The runtime serves from a private folder of its own instead (${path.dirname(recorded.path)}).`);
  return recorded?.socket;
}

/**
 * A runtime of an older version listens where it said in runtime.json (the shared temp folder in
 * earlier versions). Reaching it lets the protocol check make it step aside (or report its running forks) instead
 * of a second runtime serving the same store. Only a socket of this user's is tried; anything else is ignored.
 */
async function tryRecordedSocket(socketPath: string, storeDir: string): Promise<{ socket: net.Socket; path: string } | undefined> {
  let recorded: unknown;
  try {
    // In the store, which was just checked to be this user's; an older runtime wrote it 0644 (not secret).
    recorded = (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { socket?: unknown } | null)?.socket;
  } catch {
    return undefined;
  }
  if (typeof recorded !== 'string' || recorded === socketPath || !path.isAbsolute(recorded)) return undefined;
  try {
    const socket = await tryConnect(recorded, storeDir, { create: false });
    return socket && { socket, path: recorded };
  } catch {
    return undefined;
  }
}

/** Starts a detached runtime for the store and waits until `ready` (its socket accepts) gives a value. */
function startRuntime<T>(options: LaunchOptions, ready: () => Promise<T | undefined>): Promise<{ value: T; pid?: number }> {
  ensureStoreDir(options.storeDir);
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

/**
 * Connects to `socketPath` through a handle on its folder, opened and checked first: the folder checked is
 * the folder connected in. The handle is closed once the connect has resolved one way or the other.
 */
function tryConnect(socketPath: string, storeDir: string, options: { create: boolean }): Promise<net.Socket | undefined> {
  const dir = path.dirname(socketPath);
  const inStore = dir === path.resolve(storeDir);
  const folder = process.platform === 'win32'
    ? { address: () => socketPath, close: () => undefined }
    : (options.create ? ensurePrivateFolder : openPrivateFolder)(dir, { followSymlink: inStore });
  let address: string;
  try {
    address = folder.address(path.basename(socketPath));
    if (checkOwnSocket(address) === 'missing') {
      folder.close();
      return Promise.resolve(undefined);
    }
  } catch (error) {
    folder.close();
    throw error;
  }
  return new Promise(resolve => {
    const socket = net.connect(address);
    socket.once('connect', () => {
      folder.close();
      socket.removeAllListeners('error');
      tokenReaders.set(socket, () => readRuntimeToken(storeDir));
      resolve(socket);
    });
    socket.once('error', () => {
      folder.close();
      resolve(undefined);
    });
  });
}
