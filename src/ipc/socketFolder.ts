// The runtime's socket folder, checked and used as one thing. Checking a folder by its path and then
// connecting by the same path leaves a gap: someone who can write the folder's parent can exchange it for
// their own in between (renameat2 RENAME_EXCHANGE) and receive the token and the API key. On Linux the folder
// is opened once (O_DIRECTORY, O_NOFOLLOW where a symlink is refused), its owner and mode are checked on that
// handle, and the socket is reached through the handle, `/proc/self/fd/N/<name>`: the kernel resolves that
// to the folder that was checked, whatever its name points at by then. Such an address is about 40 bytes,
// well within a socket address. Elsewhere (macOS) the check is by path, before the connect.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PrivatePathError, currentUid } from './privateFs';
import { runtimeInfoPath, socketPathFor } from './socketPath';

export interface SocketFolder {
  /** The folder's path as named (for messages and runtime.json). */
  readonly dir: string;
  /** Where to connect or listen for `name` in this folder: through the handle when there is one. */
  address(name: string): string;
  /** Closes the handle; an address given out before then must not be used afterwards. */
  close(): void;
}

const PROC_FD = '/proc/self/fd';
const usesHandles = process.platform === 'linux' && fs.existsSync(PROC_FD);

/**
 * Opens an existing folder that must be this user's alone (mode 0700 or tighter; looser bits of an older
 * version are removed through the handle). Throws PrivatePathError, with the reason, for another user's folder,
 * a symlink (when `followSymlink` is false) or anything not a folder.
 */
export function openPrivateFolder(dir: string, options: { followSymlink: boolean }): SocketFolder {
  if (process.platform === 'win32') return { dir, address: name => path.join(dir, name), close: () => undefined };
  if (!usesHandles) return checkedByPath(dir, options.followSymlink);
  const flags = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | (options.followSymlink ? 0 : fs.constants.O_NOFOLLOW);
  let fd: number;
  try {
    fd = fs.openSync(dir, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new PrivatePathError(`${dir} is not a folder (a symlink or a file); refusing to use it.`);
    throw error;
  }
  try {
    checkOwn(dir, fs.fstatSync(fd), () => fs.fchmodSync(fd, 0o700));
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  let open = true;
  return {
    dir,
    address: name => `${PROC_FD}/${fd}/${name}`,
    close: () => {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

/** Creates `dir` (mode 0700) when missing, then opens it as `openPrivateFolder` does. */
export function ensurePrivateFolder(dir: string, options: { followSymlink: boolean }): SocketFolder {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // Something already at the name (a file, a dangling link): the open below says what.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return openPrivateFolder(dir, options);
}

/**
 * A new folder with a random name in the temp folder, 0700 from creation: used when the predictable
 * per-user folder there is held by someone else, so that they cannot stop this user's runtime from starting.
 */
export function freshPrivateFolder(prefix: string): SocketFolder {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return openPrivateFolder(dir, { followSymlink: false });
}

function checkedByPath(dir: string, followSymlink: boolean): SocketFolder {
  const stat = followSymlink ? fs.statSync(dir) : fs.lstatSync(dir);
  if (stat.isSymbolicLink()) throw new PrivatePathError(`${dir} is not a folder (a symlink); refusing to use it.`);
  checkOwn(dir, stat, () => fs.chmodSync(dir, 0o700));
  return { dir, address: name => path.join(dir, name), close: () => undefined };
}

function checkOwn(dir: string, stat: fs.Stats, tighten: () => void): void {
  const uid = currentUid();
  if (!stat.isDirectory()) throw new PrivatePathError(`${dir} is not a folder; refusing to use it.`);
  if (uid !== undefined && stat.uid !== uid) {
    throw new PrivatePathError(`${dir} belongs to another user (uid ${stat.uid}, you are ${uid}); refusing to use it.`);
  }
  if ((stat.mode & 0o077) !== 0) tighten();
}

/** Where a runtime listens: its folder (open), the socket's name, and why the predictable folder was not used. */
export interface ServingPlace { folder: SocketFolder; name: string; fallbackReason?: string }

/**
 * The runtime's socket folder: the predictable one (the store, or a per-user folder) when it is this user's;
 * a fresh private folder when someone else holds the predictable per-user one (clients then find the socket
 * through runtime.json in the store).
 */
export function openServingFolder(storeDir: string): ServingPlace {
  const predicted = socketPathFor(storeDir);
  if (process.platform === 'win32') return { folder: { dir: predicted, address: () => predicted, close: () => undefined }, name: '' };
  const dir = path.dirname(predicted);
  const name = path.basename(predicted);
  const inStore = dir === path.resolve(storeDir);
  try {
    return { folder: ensurePrivateFolder(dir, { followSymlink: inStore }), name };
  } catch (error) {
    if (inStore || !(error instanceof PrivatePathError)) throw error;
    const folder = recordedFallback(storeDir, dir) ?? freshPrivateFolder(path.basename(dir));
    return { folder, name, fallbackReason: error.message };
  }
}

/**
 * The fallback folder a runtime of this store recorded in runtime.json (in the private store) and that is
 * still this user's alone: reused, so runtimes that were killed leave one folder behind, not one each.
 */
function recordedFallback(storeDir: string, predictedDir: string): SocketFolder | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { socket?: unknown } | null;
    const dir = typeof info?.socket === 'string' ? path.dirname(info.socket) : undefined;
    if (!dir || path.dirname(dir) !== path.dirname(predictedDir) || !path.basename(dir).startsWith(`${path.basename(predictedDir)}-`)) return undefined;
    return openPrivateFolder(dir, { followSymlink: false });
  } catch {
    return undefined;
  }
}
