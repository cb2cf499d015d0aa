// The conditions a run was measured under: machine, Node, date, load, and the temp file system (every
// fork start ends in an fdatasync, so the disk is part of the result).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './stats';

export interface Conditions {
  date: string;
  cpuModel: string;
  cpuCount: number;
  totalMemoryMB: number;
  node: string;
  platform: string;
  loadAverage: number[];
  tempDir: string;
  tempFileSystem: string;
  /** Median time of a small append followed by fdatasync in the temp dir. */
  fdatasyncMs: number;
}

export function collectConditions(tempDir: string): Conditions {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryMB: Math.round(os.totalmem() / (1024 * 1024)),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map(v => Math.round(v * 100) / 100),
    tempDir,
    tempFileSystem: fileSystemOf(tempDir),
    fdatasyncMs: Math.round(measureFdatasync(tempDir) * 1000) / 1000,
  };
}

export function describeConditions(c: Conditions): string[] {
  return [
    `Date:    ${c.date}`,
    `Machine: ${c.cpuModel} × ${c.cpuCount} CPUs, ${c.totalMemoryMB} MB RAM, ${c.platform}`,
    `Node:    ${c.node}; load average at start ${c.loadAverage.join(' / ')} (1/5/15 min)`,
    `Disk:    temp dir ${c.tempDir} on ${c.tempFileSystem}; small append + fdatasync ≈ ${c.fdatasyncMs} ms`,
  ];
}

/** The file system type of the longest mount point containing `dir` (Linux); "unknown" elsewhere. */
function fileSystemOf(dir: string): string {
  try {
    const real = fs.realpathSync(dir);
    let best = { mount: '', type: 'unknown', device: '' };
    for (const line of fs.readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, mount, type] = line.split(' ');
      if (!mount || !(real === mount || real.startsWith(mount.endsWith('/') ? mount : mount + '/'))) continue;
      if (mount.length >= best.mount.length) best = { mount, type, device };
    }
    return best.mount ? `${best.type} (${best.device} at ${best.mount})` : 'unknown';
  } catch {
    return 'unknown';
  }
}

function measureFdatasync(dir: string): number {
  const file = path.join(dir, 'fdatasync-probe');
  const fd = fs.openSync(file, 'a');
  const samples: number[] = [];
  try {
    const line = 'x'.repeat(200) + '\n';
    for (let i = 0; i < 40; i++) {
      const start = performance.now();
      fs.writeSync(fd, line);
      fs.fdatasyncSync(fd);
      samples.push(performance.now() - start);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return median(samples);
}
