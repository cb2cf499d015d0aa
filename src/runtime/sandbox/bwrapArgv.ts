// The bubblewrap command line around one command (docs/design.md, "Sandbox"): a pure function of its
// options, so every rule is checked on the argv in unit tests and on real processes in the runtime tests.
// The layout was measured on Linux with bwrap 0.8: read-only root, private /tmp and /run, the writable
// paths bound back, git's redirection files re-protected, secrets masked, no network, an AF_UNIX seccomp
// filter (a read-only bind does not stop connect() on a unix socket, e.g. the runtime's own).

/** A path nothing inside may read: folders get an empty tmpfs, files /dev/null. Only existing paths: bwrap cannot create mount points in a read-only tree. */
export interface DenyEntry { path: string; kind: 'dir' | 'file' }

export interface SandboxNetworkNone { kind: 'none' }
/** Hosts reached through the runtime's filtering proxy on a unix socket, forwarded to 127.0.0.1:3128 inside by socat. */
export interface SandboxNetworkProxy { kind: 'proxy'; socket: string; socat: string }

export interface SandboxArgvOptions {
  /** Absolute path of bwrap, resolved once outside any worktree. */
  bwrap: string;
  /** Writable folders (real paths): the worktree, its git admin folder, git's objects and the fork branches' ref folders. */
  writable: string[];
  /** Existing files or folders inside a writable one that must stay read-only (`.git` pointer, commondir, gitdir, config.worktree). */
  protect: string[];
  /** Folders under the private /tmp, /run, /var/tmp that must stay visible read-only (the main checkout, home, node). */
  readOnlyRebinds: string[];
  deny: DenyEntry[];
  /** The complete environment of the command (bwrap starts from an empty one). */
  env: Readonly<Record<string, string>>;
  cwd: string;
  network: SandboxNetworkNone | SandboxNetworkProxy;
  /** The child fd carrying the AF_UNIX seccomp program; absent: no filter. */
  seccompFd?: number;
  command: string;
}

export interface SpawnArgv { file: string; args: string[] }

/** Private mounts over these: host sockets (/run/user/<uid>: ssh-agent, dbus, editor IPC) and others' temp files are gone. */
export const PRIVATE_ROOTS = ['/tmp', '/run', '/var/tmp', '/dev/shm'];
/** Where the proxy socket appears inside; socat listens on PROXY_PORT and forwards to it. */
export const INNER_PROXY_SOCKET = '/run/fork-agents/proxy.sock';
export const PROXY_PORT = 3128;

export function isUnder(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

export function buildSandboxArgv(o: SandboxArgvOptions): SpawnArgv {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const root of PRIVATE_ROOTS) args.push('--tmpfs', root);
  // Mounts apply left to right: rebinds after the tmpfs that hid them. A path under a private root brings back
  // its whole first folder there (read-only), so a write beside the worktree fails instead of landing in RAM.
  for (const dir of sortByDepth([...o.readOnlyRebinds, ...o.writable].map(topUnderPrivateRoot).filter((d): d is string => d !== undefined))) {
    args.push('--ro-bind', dir, dir);
  }
  // A deny entry that contains a writable folder must come before it (the store holding a worktree);
  // every other one after, so a writable bind cannot uncover it.
  const containsWritable = (entry: DenyEntry) => o.writable.some(dir => isUnder(entry.path, dir) && entry.path !== dir);
  const mask = (entry: DenyEntry) => (entry.kind === 'dir' ? args.push('--tmpfs', entry.path) : args.push('--ro-bind', '/dev/null', entry.path));
  for (const entry of o.deny.filter(containsWritable)) mask(entry);
  for (const dir of sortByDepth(o.writable)) args.push('--bind', dir, dir);
  for (const file of o.protect) args.push('--ro-bind', file, file);
  for (const entry of o.deny.filter(entry => !containsWritable(entry))) mask(entry);

  const env: Record<string, string> = { ...o.env };
  if (o.network.kind === 'proxy') {
    args.push('--ro-bind', o.network.socket, INNER_PROXY_SOCKET);
    const url = `http://127.0.0.1:${PROXY_PORT}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'npm_config_proxy', 'npm_config_https_proxy']) env[name] = url;
    env.NO_PROXY = '';
    env.no_proxy = '';
  }
  args.push('--clearenv');
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  args.push('--chdir', o.cwd);

  if (o.network.kind === 'none') {
    if (o.seccompFd !== undefined) args.push('--seccomp', String(o.seccompFd));
    args.push('--', 'bash', '-lc', o.command);
    return { file: o.bwrap, args };
  }
  // socat needs AF_UNIX to reach the proxy, so the filter goes on an inner bwrap started after it listens.
  const inner = o.seccompFd !== undefined
    ? `exec "$0" --unshare-user --dev-bind / / --die-with-parent --seccomp ${o.seccompFd} -- bash -lc "$1"`
    : 'exec bash -lc "$1"';
  const script = [
    `"$2" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${INNER_PROXY_SOCKET} 2>/dev/null &`,
    // Ready when a connection succeeds: at most about a second, then the command runs anyway (and fails closed).
    `i=0; while [ $i -lt 200 ] && ! (exec 9<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null; do i=$((i+1)); sleep 0.005; done`,
    inner,
  ].join('\n');
  args.push('--', 'bash', '-c', script, o.bwrap, o.command, o.network.socat);
  return { file: o.bwrap, args };
}

/** `/tmp/a/b/c` → `/tmp/a`; undefined outside the private roots (and for a root itself). */
function topUnderPrivateRoot(dir: string): string | undefined {
  const root = PRIVATE_ROOTS.find(r => dir !== r && isUnder(r, dir));
  return root && `${root}/${dir.slice(root.length + 1).split('/')[0]}`;
}

function sortByDepth(paths: string[]): string[] {
  return [...new Set(paths)].sort((a, b) => a.split('/').length - b.split('/').length);
}
