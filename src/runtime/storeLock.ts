// One runtime owns a store at a time. Start-up reads and cleans the store (loading forks cuts torn tails,
// unfinished segments are removed), so it must own the store before touching it; the socket alone could not
// decide that, because two runtimes that both find a stale socket would both remove it and listen.
//
// Node has no flock, so ownership is a chain of numbered claim files in `<store>/lock/`: `owner.<n>` holds
// the pid (and, on Linux, the process start time, so a reused pid is not taken for the owner). The owner is
// the writer of the highest number while that process lives. A runtime claims `n + 1` only after seeing the
// writer of `n` gone; the claim is a `link` of a complete file, so exactly one runtime gets each number and a
// claim is never seen half-written. After claiming it lists again: a higher number means a newer owner won
// (a claimant that read an old listing), and it backs off.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDir } from '../ipc/privateFs';

interface Claim { pid: number; start?: string }

const PREFIX = 'owner.';

/**
 * Whether this process now owns the store (false: a live runtime already does). The claim is never removed,
 * not even at exit: the next runtime sees its writer gone, whereas an emptied folder could let a runtime that
 * listed it earlier claim a lower number unseen by one that claims afresh.
 */
export function lockStore(storeDir: string): boolean {
  const dir = path.join(storeDir, 'lock');
  ensurePrivateDir(dir, { followSymlink: false });
  const mine: Claim = { pid: process.pid, start: startTimeOf(process.pid) };
  for (;;) {
    const numbers = claimNumbers(dir);
    const top = numbers.at(-1) ?? 0;
    if (top > 0) {
      const holder = readClaim(dir, top);
      // Gone since the listing (a claimant backing off removed it): look again.
      if (holder === undefined) continue;
      if (isLive(holder)) return false;
    }
    const next = top + 1;
    if (!claim(dir, next, mine)) continue; // another runtime took `next`: look again
    const higher = claimNumbers(dir).filter(n => n > next);
    if (higher.length > 0) {
      fs.rmSync(claimPath(dir, next), { force: true });
      return false;
    }
    // Older claims are history now; the newest stays until a later runtime supersedes it.
    for (const old of numbers) fs.rmSync(claimPath(dir, old), { force: true });
    return true;
  }
}

/** The pid of the live runtime that owns the store, if any; reads only (fork-agents doctor without --repair). */
export function storeOwner(storeDir: string): number | undefined {
  const dir = path.join(storeDir, 'lock');
  if (!fs.existsSync(dir)) return undefined;
  const top = claimNumbers(dir).at(-1);
  const holder = top === undefined ? undefined : readClaim(dir, top);
  return holder && isLive(holder) ? holder.pid : undefined;
}

/** Claim files a claimant killed between writing and linking left behind (`.claim-<pid>-<n>`). */
export function unfinishedClaims(storeDir: string): string[] {
  const dir = path.join(storeDir, 'lock');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter(name => name.startsWith('.claim-')).map(name => path.join(dir, name));
}

function claim(dir: string, n: number, mine: Claim): boolean {
  const temp = path.join(dir, `.claim-${process.pid}-${n}`);
  fs.writeFileSync(temp, JSON.stringify(mine), { mode: 0o600 });
  try {
    fs.linkSync(temp, claimPath(dir, n));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function claimNumbers(dir: string): number[] {
  return fs.readdirSync(dir)
    .filter(name => name.startsWith(PREFIX) && /^\d+$/.test(name.slice(PREFIX.length)))
    .map(name => Number(name.slice(PREFIX.length)))
    .sort((a, b) => a - b);
}

function claimPath(dir: string, n: number): string {
  return path.join(dir, `${PREFIX}${n}`);
}

function readClaim(dir: string, n: number): Claim | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(claimPath(dir, n), 'utf8')) as Partial<Claim>;
    if (typeof parsed.pid !== 'number') return { pid: -1 };
    return { pid: parsed.pid, start: typeof parsed.start === 'string' ? parsed.start : undefined };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { pid: -1 }; // a damaged claim names nobody alive
  }
}

function isLive(claim: Claim): boolean {
  if (claim.pid <= 0) return false;
  try {
    process.kill(claim.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Same pid, different start time: the pid was reused by another process after the owner died.
  const start = startTimeOf(claim.pid);
  return claim.start === undefined || start === undefined || start === claim.start;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined off Linux. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces; count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}
