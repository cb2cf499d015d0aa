// Where the runtime serving a store listens. One runtime per store; clients find it by this path.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

/** Unix socket paths are limited to ~108 bytes, so the store path is hashed into the temp dir. */
export function socketPathFor(storeDir: string): string {
  const digest = createHash('sha256').update(path.resolve(storeDir)).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\fork-agents-${digest}`;
  return path.join(os.tmpdir(), `fork-agents-${digest}.sock`);
}

export function runtimeInfoPath(storeDir: string): string {
  return path.join(storeDir, 'runtime.json');
}

export function runtimeLogPath(storeDir: string): string {
  return path.join(storeDir, 'runtime.log');
}
