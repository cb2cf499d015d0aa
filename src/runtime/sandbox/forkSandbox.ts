// The sandbox of one fork run (or of a chat that opted in): which paths are writable (its worktree and the
// parts of git its commits need), which are hidden, the network proxy when hosts are allowed, and for each
// command the process to spawn in place of `bash -lc`. The bash tool and worktree setup commands use it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ForkWorktree } from '../../common/forks';
import type { SandboxSettings, SandboxState } from '../../common/sandbox';
import { META_FILE } from '../git/worktreeMeta';
import { currentUid, ensurePrivateDir } from '../../ipc/privateFs';
import type { CommandPlan, CommandSandbox, FileRules } from '../tools/types';
import { buildSandboxArgv } from './bwrapArgv';
import type { DenyEntry, SandboxNetworkNone, SandboxNetworkProxy } from './bwrapArgv';
import { denyEntries, denyPaths } from './denyList';
import { pinnedHostsFromEnv, startEgressProxy } from './egressProxy';
import type { EgressDecision, EgressProxy } from './egressProxy';
import { sandboxSupport } from './platform';
import type { SandboxSupport } from './platform';
import { seatbeltProfile } from './seatbelt';
import { seccompSupported, unixSocketFilter } from './seccomp';

/** Passed from the runtime's environment into the sandbox; everything else (keys, tokens, agent sockets) stays out. */
const ENV_ALLOWED = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR',
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'];
const SECCOMP_FD = 3;

export interface ForkSandboxRequest {
  settings: SandboxSettings;
  /** The folder the commands run in (the fork's root). */
  root: string;
  /** Present for worktree forks: its folder, admin folder and branch become writable. */
  worktree?: ForkWorktree;
  storeDir: string;
  /** Names the proxy socket; one proxy per fork. */
  id: string;
  home?: string;
  onNetwork?(decision: EgressDecision): void;
  /** For tests of the platform fallback; default: this machine's. */
  support?: SandboxSupport;
}

export interface ForkSandbox {
  state: SandboxState;
  /** Absent when commands run unsandboxed (off, or auto where the platform cannot). */
  commands?: CommandSandbox;
  /** The same limits for the file tools. */
  fileRules?: FileRules;
  close(): Promise<void>;
}

export async function createForkSandbox(request: ForkSandboxRequest): Promise<ForkSandbox> {
  const { settings } = request;
  const none = (state: SandboxState, commands?: CommandSandbox): ForkSandbox => ({ state, commands, close: async () => undefined });
  if (settings.mode === 'off') return none({ on: false, allowNetwork: [], note: 'fork.sandbox is off' });
  const support = request.support ?? sandboxSupport();
  if (support.kind === 'unsupported') {
    if (settings.mode === 'auto') return none({ on: false, allowNetwork: [], note: `${support.reason}; commands are approved as without a sandbox` });
    const reason = `fork.sandbox is "required" but ${support.reason}`;
    return none({ on: false, allowNetwork: [], note: reason }, refusingSandbox(reason));
  }
  const home = request.home ?? os.homedir();
  const layout = layoutOf(request.root, request.worktree);
  const deny = denyEntries(denyPaths(home, request.storeDir, settings.denyRead));
  if (support.kind === 'seatbelt') return seatbeltSandbox(support.sandboxExec, layout, deny, settings, home);

  let network: SandboxNetworkNone | SandboxNetworkProxy = { kind: 'none' };
  let proxy: EgressProxy | undefined;
  let note: string | undefined;
  const allow = settings.allowNetwork ?? [];
  if (allow.length && !support.socat) note = 'socat is not installed, so fork.sandbox.allowNetwork cannot work: no network';
  else if (allow.length) {
    const dir = path.join(os.tmpdir(), `fork-agents-egress-${currentUid() ?? 'user'}`);
    ensurePrivateDir(dir);
    proxy = await startEgressProxy({ socketPath: path.join(dir, `${request.id}.sock`), allow, pinned: pinnedHostsFromEnv(process.env.FORK_AGENTS_SANDBOX_HOSTS), onDecision: request.onNetwork });
    network = { kind: 'proxy', socket: proxy.socketPath, socat: support.socat! };
  }
  const seccomp = seccompSupported() ? seccompFile() : undefined;
  if (!seccomp) note = [note, `no unix-socket filter on ${process.arch}`].filter(Boolean).join('; ');
  const state: SandboxState = { on: true, kind: 'bwrap', allowNetwork: network.kind === 'proxy' ? [...allow] : [], ...(note ? { note } : {}) };
  const readOnlyRebinds = [home, layout.repoTop, layout.commonDir, path.dirname(path.dirname(process.execPath))].filter((p): p is string => !!p);

  const commands: CommandSandbox = {
    plan(command, cwd, extraEnv): CommandPlan {
      const env = { ...allowedEnv(), HOME: home, TMPDIR: '/tmp', npm_config_cache: '/tmp/.npm', ...extraEnv };
      const fd = seccomp ? fs.openSync(seccomp, 'r') : undefined;
      const argv = buildSandboxArgv({
        bwrap: support.bwrap, writable: layout.writable, protect: layout.protect, readOnlyRebinds, deny, env, cwd,
        network, seccompFd: fd === undefined ? undefined : SECCOMP_FD, command,
      });
      return {
        ...argv, env, stdio: fd === undefined ? [] : [fd],
        started: () => {
          if (fd !== undefined) fs.closeSync(fd);
        },
      };
    },
    explain: output => explainFailure(output, layout.writable[0], state),
  };
  return { state, commands, fileRules: fileRulesOf(deny, layout), close: async () => proxy?.close() };
}

interface Layout { writable: string[]; protect: string[]; repoTop?: string; commonDir?: string }

/** A worktree fork writes its worktree, admin folder, objects and fork branches; anything else writes only its root, never `.git`. */
function layoutOf(root: string, worktree: ForkWorktree | undefined): Layout {
  if (!worktree || worktree.discarded) {
    const dotGit = path.join(root, '.git');
    return { writable: [root], protect: fs.existsSync(dotGit) ? [dotGit] : [] };
  }
  const admin = worktree.gitDir ?? fs.realpathSync(path.join(worktree.repoRoot, '.git', 'worktrees', path.basename(worktree.path)));
  const commonDir = commonDirOf(admin);
  const refDirs = [path.join(commonDir, 'refs', 'heads', 'fork'), path.join(commonDir, 'logs', 'refs', 'heads', 'fork')];
  for (const dir of refDirs) fs.mkdirSync(dir, { recursive: true });
  // git reads config.worktree when extensions.worktreeConfig is on; an empty read-only one keeps it ours.
  const configWorktree = path.join(admin, 'config.worktree');
  if (!fs.existsSync(configWorktree)) fs.writeFileSync(configWorktree, '');
  const protect = [path.join(worktree.path, '.git'), ...['commondir', 'gitdir', 'config.worktree', META_FILE].map(name => path.join(admin, name))]
    .filter(p => fs.existsSync(p));
  return { writable: [worktree.path, admin, path.join(commonDir, 'objects'), ...refDirs], protect, repoTop: worktree.repoRoot, commonDir };
}

function commonDirOf(admin: string): string {
  try {
    const text = fs.readFileSync(path.join(admin, 'commondir'), 'utf8').trim();
    return fs.realpathSync(path.resolve(admin, text));
  } catch {
    return path.dirname(path.dirname(admin));
  }
}

function allowedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && (ENV_ALLOWED.includes(name) || name.startsWith('LC_'))) env[name] = value;
  }
  return env;
}

let seccompPath: string | undefined;
/** Written once per runtime, in a private folder; each command gets its own descriptor on it. */
function seccompFile(): string {
  if (seccompPath && fs.existsSync(seccompPath)) return seccompPath;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-seccomp-'));
  seccompPath = path.join(dir, 'unix-block.bpf');
  fs.writeFileSync(seccompPath, unixSocketFilter(), { mode: 0o600 });
  return seccompPath;
}

function refusingSandbox(reason: string): CommandSandbox {
  return {
    plan: () => ({ refused: `Not run: ${reason}. Ask the user to install it, or to set fork.sandbox to auto or off.` }),
    explain: () => undefined,
  };
}

function seatbeltSandbox(sandboxExec: string, layout: Layout, deny: DenyEntry[], settings: SandboxSettings, home: string): ForkSandbox {
  const profile = seatbeltProfile({ writable: layout.writable, protect: layout.protect, deny });
  const note = settings.allowNetwork?.length ? 'fork.sandbox.allowNetwork is not supported on macOS yet: no network' : undefined;
  const state: SandboxState = { on: true, kind: 'seatbelt', allowNetwork: [], ...(note ? { note } : {}) };
  const commands: CommandSandbox = {
    plan: (command, cwd, extraEnv) => {
      const env = { ...allowedEnv(), HOME: home, ...extraEnv };
      return { file: sandboxExec, args: ['-p', profile, '/bin/bash', '-lc', command], env, stdio: [], started: () => undefined };
    },
    explain: output => explainFailure(output, layout.writable[0], state),
  };
  return { state, commands, fileRules: fileRulesOf(deny, layout), close: async () => undefined };
}

function fileRulesOf(deny: DenyEntry[], layout: Layout): FileRules {
  return { denied: deny.map(entry => entry.path), readOnly: layout.protect };
}

/** A sandboxed command failed the way a sandbox makes things fail: say why, so the model changes course instead of retrying. */
export function explainFailure(output: string, writable: string, state: SandboxState): string | undefined {
  const notes: string[] = [];
  if (/Read-only file system|EROFS/.test(output)) notes.push(`only ${writable} (and /tmp, discarded after the command) is writable; everything else is read-only`);
  if (/Could not resolve host|EAI_AGAIN|ENOTFOUND|Temporary failure in name resolution|Network is unreachable|ENETUNREACH|Couldn't connect|ECONNREFUSED|blocked by the fork sandbox/.test(output)) {
    notes.push(state.allowNetwork.length ? `network goes only through the proxy to ${state.allowNetwork.join(', ')} (tools that ignore HTTPS_PROXY cannot connect)` : 'there is no network (fork.sandbox.allowNetwork lists none)');
  }
  if (/socket\(.*\).*(Operation not permitted|EPERM)|listen EPERM|connect EPERM/.test(output)) notes.push('unix sockets cannot be created');
  if (notes.length === 0) return undefined;
  return `[Sandboxed: ${notes.join('; ')}. This is the fork's sandbox policy, not a bug to work around: do it another way, or report that you need it.]`;
}
