// Files and folders that belong to the user alone: the store, the runtime's socket folder, the
// token. Modes are given when a thing is created (never chmod'ed open-then-closed), and what already
// exists is checked: owned by this user, not reachable by anyone else.
import * as fs from 'node:fs';
import * as path from 'node:path';

export class PrivatePathError extends Error {}

/** The current user's uid; undefined on Windows, where the checks below do not apply. */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Creates `dir` (and missing parents) with mode 0700, or checks an existing one: it must be a folder owned
 * by this user; group/other bits left by an older version are removed. `followSymlink: false` refuses a
 * symlink in its place (folders in shared places such as the temp folder).
 */
export function ensurePrivateDir(dir: string, options: { followSymlink?: boolean } = {}): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = currentUid();
  if (uid === undefined) return;
  const stat = options.followSymlink === false ? fs.lstatSync(dir) : fs.statSync(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) throw new PrivatePathError(`${dir} is not a folder; refusing to use it.`);
  if (stat.uid !== uid) {
    throw new PrivatePathError(`${dir} belongs to another user (uid ${stat.uid}, you are ${uid}); refusing to use it.`);
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

const STORE_CHOICE = 'choose another store (--store or FORK_AGENTS_HOME for the CLI, FORK_AGENTS_STORE for the editor)';

/**
 * ensurePrivateDir for the store, its refusals naming the folder and what to do: a store under a folder the
 * user cannot enter (another user's home, a closed mount) fails mkdir or stat with EACCES or EPERM, which
 * alone says neither which folder nor why.
 */
export function ensureStoreDir(storeDir: string): void {
  try {
    ensurePrivateDir(storeDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new PrivatePathError(`The Fork Agents store ${storeDir} cannot be opened: permission denied on it or a folder above it, ` +
        `which is another user's, or closed to you; fix its permissions or ${STORE_CHOICE}.`);
    }
    if (error instanceof PrivatePathError) throw new PrivatePathError(`${error.message.replace(/\.$/, '')}; ${STORE_CHOICE}.`);
    throw error;
  }
}

/** Opens (creating with mode 0600) a file in a private folder; an existing file readable by others is tightened. */
export function openPrivateFile(file: string, flags: 'a' | 'w' | 'wx' | number): number {
  const fd = fs.openSync(file, flags, 0o600);
  if (currentUid() !== undefined && (fs.fstatSync(fd).mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
  return fd;
}

/**
 * Replaces `file` atomically with `data`, mode 0600: readers see the old content or the new, never a part.
 * Flushed to disk before the rename unless `durable: false` (a file that outlives no power loss by meaning).
 */
export function writePrivateFile(file: string, data: string, options: { durable?: boolean } = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.rmSync(temp, { force: true });
  const fd = openPrivateFile(temp, 'wx');
  try {
    fs.writeFileSync(fd, data);
    if (options.durable !== false) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

/**
 * What is at a socket path: nothing (or a leftover file of this user), or a socket this user owns. A socket
 * or file of another user is refused with the reason, before anything connects to it.
 */
export function checkOwnSocket(socketPath: string): 'missing' | 'socket' {
  if (process.platform === 'win32') return 'socket';
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid) {
    throw new PrivatePathError(`${socketPath} belongs to another user (uid ${stat.uid}, you are ${uid}); refusing to connect to it.`);
  }
  if (stat.isDirectory()) throw new PrivatePathError(`${socketPath} is a folder, not the runtime's socket.`);
  // A leftover file of this user: no runtime listens there; the one that starts replaces it.
  return stat.isSocket() ? 'socket' : 'missing';
}

/** Reads a secret file only when it is a plain file of this user that no one else can read; else undefined. */
export function readPrivateFile(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return undefined;
  }
  const uid = currentUid();
  if (!stat.isFile()) return undefined;
  if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0)) return undefined;
  return fs.readFileSync(file, 'utf8');
}
