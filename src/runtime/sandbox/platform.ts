// Can this machine sandbox commands, and with what? Linux: bubblewrap (probed once: it must be able to
// create the user, mount, pid and network namespaces), with socat for the network proxy. macOS:
// sandbox-exec with a generated Seatbelt profile. Windows: none.
import { execFileSync } from 'node:child_process';
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

function detect(): SandboxSupport {
  if (process.platform === 'darwin') {
    return fs.existsSync('/usr/bin/sandbox-exec') ? { kind: 'seatbelt', sandboxExec: '/usr/bin/sandbox-exec' } : { kind: 'unsupported', reason: 'sandbox-exec is missing' };
  }
  if (process.platform !== 'linux') return { kind: 'unsupported', reason: `no sandbox on ${process.platform}` };
  const bwrap = findSystem('bwrap');
  if (!bwrap) return { kind: 'unsupported', reason: 'bubblewrap is not installed (apt-get install bubblewrap socat)' };
  try {
    // --unshare-user even as root, so root and other users get the same sandbox.
    execFileSync(bwrap, ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { kind: 'unsupported', reason: `bubblewrap cannot create namespaces here${stderr ? `: ${stderr}` : ''} (unprivileged user namespaces disabled?)` };
  }
  return { kind: 'bwrap', bwrap, socat: findSystem('socat') };
}
