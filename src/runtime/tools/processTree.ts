// Finding every process a bash call started, including those that left its process group (`setsid`,
// daemons that double-fork). Each call's processes carry an environment marker they
// inherit whatever group or session they move to (the approach of Jenkins' ProcessTreeKiller); on Linux
// /proc/<pid>/environ shows it. Elsewhere only the process group is reached.
import * as fs from 'node:fs';

export const CALL_MARKER = 'FORK_AGENTS_BASH_CALL';

/** Pids (not ours) whose environment holds `CALL_MARKER=<one of ids>`. */
export function markedProcesses(ids: ReadonlySet<string>): number[] {
  if (process.platform !== 'linux' || ids.size === 0) return [];
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter(name => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of pids) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone, or another user's
    }
    const start = environ.indexOf(`${CALL_MARKER}=`);
    if (start < 0) continue;
    const end = environ.indexOf('\0', start);
    const value = environ.slice(start + CALL_MARKER.length + 1, end < 0 ? undefined : end);
    if (ids.has(value)) found.push(pid);
  }
  return found;
}

export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
