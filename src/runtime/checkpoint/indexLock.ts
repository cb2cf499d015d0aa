// One writer of a shadow's index at a time across runtimes (two windows, or a CLI beside the editor,
// on one store). Within a runtime, `serialized` (shadowRepo.ts) orders the work; git's own index.lock
// only covers one git call, while a checkpoint through the index is several — the in-memory list of
// the index's paths is checked against the index's identity before them, and that identity is read
// again after them (trackedPaths.ts). Another runtime's write between our last call and that read would
// have its index taken for ours, with a list that lacks its entries. Every writer of a shadow's index is
// a checkpoint (restores use a scratch index), and each takes this lock around all of it.
import { randomUUID } from 'node:crypto';
import { promises as fs, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const INDEX_LOCK_NAME = 'fork-agents-index.lock';
/** A lock older than this is a runtime that hung or a reused process id: taken over. */
const STALE_MS = 10 * 60_000;
/** The longest pause between two tries while another runtime holds the lock. */
const MAX_PAUSE_MS = 50;
/** Waited longer than this, the checkpoint is not taken (logged; the turn goes on without it). */
const MAX_WAIT_MS = 2 * 60_000;

export class IndexLockBusy extends Error {}

/** Runs `work` holding the shadow's index lock: a file naming this process, made only if absent. */
export async function withIndexLock<T>(gitDir: string, work: () => Promise<T>): Promise<T> {
  const file = path.join(gitDir, INDEX_LOCK_NAME);
  const token = `${process.pid} ${randomUUID()}\n`;
  const since = Date.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      // Synchronous, as treeObjects.ts's writes: three small calls a checkpoint, each cheaper than a
      // thread-pool round trip.
      writeFileSync(file, token, { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await takeOverStale(file)) continue;
    if (Date.now() - since > MAX_WAIT_MS) throw new IndexLockBusy(`the checkpoint index is held by another runtime (${file})`);
    // Another runtime's checkpoint: tens of milliseconds, usually.
    await new Promise(resolve => setTimeout(resolve, pause));
  }
  try {
    return await work();
  } finally {
    let held = '';
    try {
      held = readFileSync(file, 'utf8');
    } catch {
      // Gone: taken over as stale meanwhile, and released by whoever took it.
    }
    if (held === token) rmSync(file, { force: true });
  }
}

/** Removes a lock whose runtime has ended (or that is too old); true when it did. */
async function takeOverStale(file: string): Promise<boolean> {
  // Safe to drop: a lock gone meanwhile is free; the next try takes it.
  const [content, stat] = await Promise.all([fs.readFile(file, 'utf8').catch(() => undefined), fs.stat(file).catch(() => undefined)]);
  if (content === undefined || !stat) return true;
  const pid = Number(content.split(' ')[0]);
  // Made before the machine started: its process id may be another process's now.
  const beforeBoot = stat.mtimeMs < Date.now() - os.uptime() * 1000;
  if (!beforeBoot && Date.now() - stat.mtimeMs < STALE_MS && (!content.endsWith('\n') || alive(pid))) return false;
  // Moved aside, not removed: of two runtimes that both saw it stale, only one moves this file, and
  // one that moved a fresh lock made meanwhile puts it back (link fails if a third made one since).
  const aside = `${file}.${process.pid}.${randomUUID()}`;
  if (!(await fs.rename(file, aside).then(() => true, () => false))) return true;
  const moved = await fs.readFile(aside, 'utf8').catch(() => undefined);
  // Safe to drop: a failed put-back means a new lock is there already, which is the holder's.
  if (moved !== content) await fs.link(aside, file).catch(() => undefined);
  await fs.rm(aside, { force: true });
  return true;
}

/** Whether a process of this machine has `pid` (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
