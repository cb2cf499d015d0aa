// What nothing inside the sandbox may read, whatever the fork's worktree: the user's credentials (the
// documented list below), the runtime's store (transcripts, the token that drives the runtime, its socket)
// and the user's own fork.sandbox.denyRead. Only existing paths become mounts (see bwrapArgv.ts); a path
// and its real path are both masked, so a symlinked ~/.aws is hidden too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath, separateSocketDir } from '../../ipc/socketPath';
import type { DenyEntry } from './bwrapArgv';

/** Relative to the home folder. Keep SECURITY.md's list the same. */
export const HOME_SECRETS: readonly string[] = [
  '.ssh', '.aws', '.azure', '.config/gcloud', '.config/gh', '.config/hub', '.docker', '.kube', '.gnupg', '.password-store',
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.netrc', '.git-credentials', '.config/git/credentials', '.cargo/credentials',
  '.cargo/credentials.toml', '.gem/credentials', '.terraform.d', '.vault-token', '.pgpass', '.my.cnf', '.boto', '.s3cfg',
  '.anthropic', '.claude', '.codex', '.config/anthropic', '.vscode-server', '.local/share/keyrings', '.mozilla', '.config/google-chrome',
  '.config/chromium', '.fork-agents',
];

/** Expands `~/` against `home`; anything else must already be absolute. */
export function expandHome(entry: string, home: string): string {
  return entry === '~' ? home : entry.startsWith('~/') ? path.join(home, entry.slice(2)) : path.resolve(entry);
}

/** Every path to hide: the home secrets, the store, the socket's folder when apart from the store, the user's list. */
export function denyPaths(home: string, storeDir: string, userDenyRead: readonly string[] = []): string[] {
  const socketDir = separateSocketDir(storeDir);
  const servingDir = recordedSocketDir(storeDir);
  return [
    ...HOME_SECRETS.map(rel => path.join(home, rel)),
    path.resolve(storeDir),
    ...(socketDir ? [socketDir] : []),
    ...(servingDir && servingDir !== socketDir ? [servingDir] : []),
    ...userDenyRead.map(entry => expandHome(entry, home)),
  ];
}

/** The folder the runtime recorded it serves from: a fresh one when someone else held the predictable one. */
function recordedSocketDir(storeDir: string): string | undefined {
  try {
    const socket = (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { socket?: unknown } | null)?.socket;
    return typeof socket === 'string' && path.isAbsolute(socket) ? path.dirname(socket) : undefined;
  } catch {
    return undefined;
  }
}

/** The existing ones, as folder or file masks, each under its own path and its real path. */
export function denyEntries(paths: readonly string[]): DenyEntry[] {
  const seen = new Map<string, DenyEntry>();
  for (const candidate of paths) {
    let real: string;
    let stat: fs.Stats;
    try {
      real = fs.realpathSync(candidate);
      stat = fs.statSync(real);
    } catch {
      continue; // missing (or a dangling link): nothing to read there
    }
    const kind = stat.isDirectory() ? 'dir' : 'file';
    for (const p of new Set([path.resolve(candidate), real])) {
      // A symlink itself cannot be a mount point target bwrap replaces reliably: mask where it leads.
      const target = p === real ? p : isSymlink(p) ? undefined : p;
      if (target && !seen.has(target)) seen.set(target, { path: target, kind });
    }
  }
  return [...seen.values()];
}

function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
