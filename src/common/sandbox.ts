// The OS sandbox around a fork's commands: its settings (fork.sandbox*, `--sandbox`), the state a fork
// reports (panel row, `list`, transcript), and the "never looser on revival" rule. Shared by the host's
// settings, the CLI and the runtime.

/** auto: sandbox where the platform can, run unsandboxed (asking as before) where not; required: never unsandboxed; off. */
export type SandboxMode = 'auto' | 'required' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'auto', 'required'];

export interface SandboxSettings {
  mode: SandboxMode;
  /** fork.sandbox.parent: the chat itself (not only its forks) runs its commands in the sandbox. */
  parent?: boolean;
  /** fork.sandbox.denyRead: more paths (absolute, or `~/…`) nothing in the sandbox may read. */
  denyRead?: string[];
  /** fork.sandbox.allowNetwork: host names (or `*.suffix`) reachable through the fork's filtering proxy. */
  allowNetwork?: string[];
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'auto' };

/** What a fork's commands actually run in, shown on its row, in `list` and in its transcript. */
export interface SandboxState {
  on: boolean;
  /** How: bubblewrap (Linux) or Seatbelt (macOS). */
  kind?: 'bwrap' | 'seatbelt';
  /** Hosts reachable through the proxy; empty: no network at all. */
  allowNetwork: string[];
  /** Why it is off, or what it cannot do. */
  note?: string;
}

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}

/** A host pattern: a DNS name, or `*.` and a name (any subdomain). */
export function isHostPattern(text: string): boolean {
  return /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(text);
}

export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.some(pattern => {
    const p = pattern.toLowerCase();
    return p.startsWith('*.') ? name.endsWith(p.slice(1)) && name.length > p.length - 1 : name === p;
  });
}

/**
 * The settings a revived fork runs with: the reviving client's, but never looser than those recorded at
 * launch. A fork launched before sandboxing existed (none recorded) keeps the client's.
 */
export function stricterSandbox(recorded: SandboxSettings | undefined, current: SandboxSettings): SandboxSettings {
  if (!recorded) return current;
  const mode = SANDBOX_MODES.indexOf(recorded.mode) >= SANDBOX_MODES.indexOf(current.mode) ? recorded.mode : current.mode;
  const denyRead = [...new Set([...(recorded.denyRead ?? []), ...(current.denyRead ?? [])])];
  const allowed = new Set(current.allowNetwork ?? []);
  const allowNetwork = (recorded.allowNetwork ?? []).filter(host => allowed.has(host));
  return {
    mode, ...(recorded.parent || current.parent ? { parent: true } : {}),
    ...(denyRead.length ? { denyRead } : {}), ...(allowNetwork.length ? { allowNetwork } : {}),
  };
}

/** One line: "sandbox: on (bwrap), network: off" / "…, network: registry.npmjs.org" / "sandbox: off (why)". */
export function describeSandbox(state: SandboxState | undefined): string {
  if (!state) return 'sandbox: off';
  if (!state.on) return `sandbox: off${state.note ? ` (${state.note})` : ''}`;
  const network = state.allowNetwork.length ? `only ${state.allowNetwork.join(', ')} via proxy` : 'off';
  return `sandbox: on${state.kind ? ` (${state.kind})` : ''}, network: ${network}`;
}

/** Settings as typed by a user (setting values, CLI flags): bad entries dropped with a reason each. */
export function parseSandboxSettings(value: { mode?: unknown; parent?: unknown; denyRead?: unknown; allowNetwork?: unknown }): { settings: SandboxSettings; problems: string[] } {
  const problems: string[] = [];
  let mode: SandboxMode = 'auto';
  if (value.mode !== undefined) {
    if (isSandboxMode(value.mode)) mode = value.mode;
    else problems.push(`fork.sandbox must be auto, required or off (got ${JSON.stringify(value.mode)}); using auto`);
  }
  const list = (raw: unknown): string[] => (Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map(x => x.trim()) : []);
  const denyRead = list(value.denyRead).filter(p => {
    const ok = p.startsWith('/') || p.startsWith('~/');
    if (!ok) problems.push(`fork.sandbox.denyRead: ${JSON.stringify(p)} is not an absolute or ~/ path; left out`);
    return ok;
  });
  const allowNetwork = list(value.allowNetwork).filter(h => {
    const ok = isHostPattern(h);
    if (!ok) problems.push(`fork.sandbox.allowNetwork: ${JSON.stringify(h)} is not a host name or *.suffix; left out`);
    return ok;
  });
  const settings: SandboxSettings = {
    mode, ...(value.parent === true ? { parent: true } : {}),
    ...(denyRead.length ? { denyRead } : {}), ...(allowNetwork.length ? { allowNetwork } : {}),
  };
  return { settings, problems };
}

/** "worktree <path>; sandbox: on (bwrap), network: off": a fork's isolation in one line (list, panel). */
export function isolationText(fork: { isolation: 'worktree' | 'shared'; worktree?: { path: string }; sandbox?: SandboxState }): string {
  const where = fork.isolation === 'worktree' && fork.worktree ? `worktree ${fork.worktree.path}` : 'shared folder (no worktree)';
  return `${where}; ${fork.sandbox ? describeSandbox(fork.sandbox) : 'sandbox: not run yet'}`;
}
