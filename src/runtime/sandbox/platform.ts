// Can this machine sandbox commands, and with what? Linux: bubblewrap (probed once: it must be able to
// create the user, mount, pid and network namespaces), with socat for the network proxy. macOS:
// sandbox-exec with a generated Seatbelt profile. Windows: none.
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type SandboxSupport =
  | { kind: 'bwrap'; bwrap: string; socat?: string }
  | { kind: 'seatbelt'; sandboxExec: string }
  | { kind: 'unsupported'; reason: string };

/** System folders only: a bwrap or socat planted in a worktree or on a user-writable PATH entry is never used. */
const SYSTEM_BIN = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin'];

let cached: SandboxSupport | undefined;

export function sandboxSupport(): SandboxSupport {
  cached ??= detect();
  return cached;
}

let probing: Promise<SandboxSupport> | undefined;

/**
 * The same answer without blocking the runtime's thread: bubblewrap's trial run (30–120 ms of a
 * synchronous spawn on a loaded machine) runs as a child process the loop does not wait on. fork/start
 * awaits this before it writes a sandbox notice; later calls of sandboxSupport() find the answer cached.
 */
export function probeSandboxSupport(): Promise<SandboxSupport> {
  if (cached) return Promise.resolve(cached);
  probing ??= detectAsync().then(support => (cached ??= support));
  return probing;
}

/**
 * Begins the probe once, on a later turn of the loop, where a fork may soon need its answer (a chat's
 * turn has ended): the first fork/start then finds it answered instead of waiting 16–170 ms for the trial
 * run (docs/design.md §4.6). Never at start-up: a runtime that only chats may spawn it, never waits on it.
 */
export function warmSandboxProbe(): void {
  if (cached || probing) return;
  setImmediate(() => void probeSandboxSupport()).unref();
}

async function detectAsync(): Promise<SandboxSupport> {
  if (process.platform !== 'linux') return detect();
  const bwrap = findSystem('bwrap');
  if (!bwrap) return detect();
  const stderr = await new Promise<string | undefined>(resolve => {
    execFile(bwrap, BWRAP_TRIAL, { timeout: 10_000 }, (error, _stdout, err) => resolve(error ? String(err).trim() : undefined));
  });
  if (stderr !== undefined) return { kind: 'unsupported', reason: bwrapRefusal(stderr || undefined) };
  return { kind: 'bwrap', bwrap, socat: findSystem('socat') };
}

function findSystem(name: string): string | undefined {
  for (const dir of SYSTEM_BIN) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** --unshare-user even as root, so root and other users get the same sandbox. */
const BWRAP_TRIAL = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true'];

function bwrapRefusal(stderr: string | undefined): string {
  return `bubblewrap cannot create namespaces here${stderr ? `: ${stderr}` : ''} (unprivileged user namespaces disabled?)`;
}

function detect(): SandboxSupport {
  if (process.platform === 'darwin') {
    return fs.existsSync('/usr/bin/sandbox-exec') ? { kind: 'seatbelt', sandboxExec: '/usr/bin/sandbox-exec' } : { kind: 'unsupported', reason: 'sandbox-exec is missing' };
  }
  if (process.platform !== 'linux') return { kind: 'unsupported', reason: `no sandbox on ${process.platform}` };
  const bwrap = findSystem('bwrap');
  if (!bwrap) return { kind: 'unsupported', reason: 'bubblewrap is not installed (apt-get install bubblewrap socat)' };
  try {
    execFileSync(bwrap, BWRAP_TRIAL, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  } catch (error) {
    return { kind: 'unsupported', reason: bwrapRefusal((error as { stderr?: Buffer }).stderr?.toString().trim()) };
  }
  return { kind: 'bwrap', bwrap, socat: findSystem('socat') };
}
