// The process groups a fork's tools started (each bash call and setup command leads its own group), so
// that stopping, finishing or discarding the fork ends the servers and watchers they left running — by
// process group, never by name. On Linux a group is only signalled while one of its members still
// carries the fork's FORK_AGENTS_FORK_ID: a group id the system reused for someone else is left alone.
import { promises as fs } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const GRACE_MS = 2_000;
const POLL_MS = 50;

export class ProcessGroups {
  private readonly groups = new Set<number>();

  constructor(private readonly forkId: string) {}

  add(pgid: number): void {
    this.groups.add(pgid);
  }

  get size(): number {
    return this.groups.size;
  }

  /** Ends every process still running in the recorded groups; returns how many there were. */
  async endAll(): Promise<number> {
    const groups = [...this.groups];
    this.groups.clear();
    // No commands ran: nothing to end, and no scan of every process on the machine (most forks get here).
    if (groups.length === 0) return 0;
    let ended = 0;
    const live: number[] = [];
    const table = await processTable();
    for (const pgid of groups) {
      const members = await membersOf(pgid, this.forkId, table);
      if (members === 0) continue;
      ended += members;
      live.push(pgid);
      signal(pgid, 'SIGTERM');
    }
    if (live.length === 0) return 0;
    const deadline = Date.now() + GRACE_MS;
    let remaining = live;
    while (remaining.length > 0 && Date.now() < deadline) {
      await sleep(POLL_MS);
      remaining = remaining.filter(pgid => signal(pgid, 0));
    }
    for (const pgid of remaining) signal(pgid, 'SIGKILL');
    return ended;
  }
}

/** Sends `sig` to the group (0: only asks whether it exists); false when the group is gone. */
function signal(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Live processes by process group, from /proc; undefined where there is no /proc. One scan for all groups. */
async function processTable(): Promise<Map<number, string[]> | undefined> {
  let pids: string[];
  try {
    pids = (await fs.readdir('/proc')).filter(name => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const table = new Map<number, string[]>();
  for (const pid of pids) {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the parenthesised command name: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(fields[2]);
    if (!stat || fields[0] === 'Z' || !Number.isInteger(pgrp)) continue;
    const list = table.get(pgrp) ?? [];
    list.push(pid);
    table.set(pgrp, list);
  }
  return table;
}

/**
 * Live members of a group. With /proc: the processes whose group it is, counted only when one of them
 * carries the fork's id in its environment; without /proc: 1 while the group exists.
 */
async function membersOf(pgid: number, forkId: string, table: Map<number, string[]> | undefined): Promise<number> {
  if (!table) return signal(pgid, 0) ? 1 : 0;
  const members = table.get(pgid) ?? [];
  const marker = `FORK_AGENTS_FORK_ID=${forkId}\0`;
  for (const pid of members) {
    const environ = await fs.readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (`\0${environ}\0`.includes(`\0${marker}`)) return members.length;
  }
  return 0;
}
