// Where the runtime serving a store listens, and the token clients present. One runtime per
// store; clients find it by this path. The socket lives in a folder only this user can enter: the store
// itself when the path fits, else $XDG_RUNTIME_DIR, else a per-user folder in the temp folder.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentUid } from './privateFs';

/** sun_path holds 108 bytes on Linux, 104 on macOS (with the terminating NUL). */
const MAX_SOCKET_PATH = 100;

export function socketPathFor(storeDir: string): string {
  const resolved = path.resolve(storeDir);
  const digest = createHash('sha256').update(resolved).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\fork-agents-${digest}`;
  const inStore = path.join(resolved, 'runtime.sock');
  if (Buffer.byteLength(inStore) <= MAX_SOCKET_PATH) return inStore;
  const xdg = process.env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg)) {
    const candidate = path.join(xdg, 'fork-agents', `${digest}.sock`);
    if (Buffer.byteLength(candidate) <= MAX_SOCKET_PATH) return candidate;
  }
  return path.join(os.tmpdir(), `fork-agents-${currentUid() ?? 'user'}`, `${digest}.sock`);
}

/** The folder the socket is in, when it is not the store (it must be private too, and no symlink). */
export function separateSocketDir(storeDir: string): string | undefined {
  const socketPath = socketPathFor(storeDir);
  if (process.platform === 'win32') return undefined;
  const dir = path.dirname(socketPath);
  return dir === path.resolve(storeDir) ? undefined : dir;
}

/** A fresh random token per runtime start, 0600; a client must present it at `initialize`. */
export function runtimeTokenPath(storeDir: string): string {
  return path.join(storeDir, 'runtime.token');
}

export function runtimeInfoPath(storeDir: string): string {
  return path.join(storeDir, 'runtime.json');
}

export function runtimeLogPath(storeDir: string): string {
  return path.join(storeDir, 'runtime.log');
}
