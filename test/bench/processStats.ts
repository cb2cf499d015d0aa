// Facts about processes and folders the runtime sections print: RSS from /proc (Linux), bytes under a
// folder, the load average at the moment a row is measured.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Resident set size now and its peak (VmHWM) of a process, in bytes; 0 where /proc is missing. */
export function rssOf(pid: number): { now: number; peak: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { now: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return { now: 0, peak: 0 };
  }
}

/** Bytes of the regular files under `dir` (sockets and links are not counted). */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(full);
    else if (entry.isFile()) total += sizeOf(full);
  }
  return total;
}

/** "load 1.23" — the 1-minute load average now, printed beside each row of the runtime sections. */
export function loadText(): string {
  return `load ${os.loadavg()[0].toFixed(2)}`;
}

/** A file's size; 0 when it went away meanwhile (the runtime renames temp files). */
function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * CPU time of a process's main thread so far, in ms (/proc/PID/schedstat: nanoseconds on the CPU) — the
 * runtime's only JavaScript thread. Far less sensitive to a shared machine's load than wall time; NaN off Linux.
 */
export function mainThreadCpuMs(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}
