// Which paths of a work tree changed since the last checkpoint, from the file system's own change
// notices (one non-recursive fs.watch per folder; a folder's watch reports the files in it), so a
// checkpoint asks git about those paths only instead of stat'ing every file of the repository. Whenever
// the notices cannot be trusted (a notice without a name, a watch error, more folders than the cap),
// the watcher says "unknown" and the checkpoint scans everything, as it does without one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsPath, nameOf } from './pathBytes';

/** Folders one work tree may watch; a tree with more (a dependency folder not ignored) is scanned instead. */
export const MAX_WATCHED_FOLDERS = 5_000;
/**
 * Notices between two checkpoints past which the tree counts as churning (a build, a generator, a tool
 * swapping folders in a loop): every notice costs the runtime's only thread a stat, and a folder that
 * reappears a re-watch and a read of it, so a flood would starve the agent. The watcher then stops and
 * every later checkpoint scans, which costs the same whatever churns.
 */
export const MAX_NOTICES_BETWEEN_CHECKPOINTS = 20_000;

export class ChangeWatcher {
  private readonly watches = new Map<string, fs.FSWatcher>();
  private changed = new Set<string>();
  private trusted = true;
  private notices = 0;

  /** `skip`: folders (relative, `/`-separated) git ignores: never watched, and nothing under them counts. */
  constructor(
    private readonly workTree: string,
    private readonly skip: ReadonlySet<string>,
    private readonly maxNotices = MAX_NOTICES_BETWEEN_CHECKPOINTS,
  ) {}

  /** Watches every folder of the tree but `.git` and the ignored ones; false when it could not. */
  start(): boolean {
    this.watchTree('');
    return this.trusted;
  }

  /**
   * The paths (files or folders, relative) changed since the last call, or undefined when that is not
   * known and everything must be scanned. Waits for one poll phase of the event loop first, so the
   * notices the kernel already holds for changes made before the call are read: called from a poll
   * callback (a process that ended), the next check phase comes before the next poll, so the second
   * setImmediate is what runs after one.
   */
  async take(): Promise<Set<string> | undefined> {
    await new Promise(resolve => setImmediate(resolve));
    await new Promise(resolve => setImmediate(resolve));
    if (!this.trusted) return undefined;
    this.notices = 0;
    const changed = this.changed;
    this.changed = new Set();
    return changed;
  }

  get healthy(): boolean {
    return this.trusted;
  }

  close(): void {
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }

  private distrust(): void {
    this.trusted = false;
    this.close();
  }

  private watchTree(rel: string): void {
    if (!this.trusted || this.watches.has(rel) || this.skip.has(rel)) return;
    if (this.watches.size >= MAX_WATCHED_FOLDERS) return this.distrust();
    const dir = path.join(this.workTree, rel);
    let watch: fs.FSWatcher;
    let entries: fs.Dirent<Buffer>[];
    try {
      // Watched before it is read: a file made meanwhile is noticed, not missed. Names as bytes: one
      // that is not UTF-8 is still the file's (pathBytes.ts).
      watch = fs.watch(fsPath(dir), { persistent: false, encoding: 'buffer' }, (_event, name) => this.notice(rel, name));
      watch.on('error', () => this.distrust());
      this.watches.set(rel, watch);
      entries = fs.readdirSync(fsPath(dir), { withFileTypes: true, encoding: 'buffer' });
    } catch {
      // Gone already (its removal is a notice of the parent), or unreadable: its parent's notice names it.
      this.watches.get(rel)?.close();
      this.watches.delete(rel);
      return;
    }
    for (const entry of entries) {
      const name = nameOf(entry.name);
      if (entry.isDirectory() && !(rel === '' && name === '.git')) this.watchTree(rel === '' ? name : `${rel}/${name}`);
    }
  }

  private notice(dirRel: string, raw: Buffer | null): void {
    if (!this.trusted) return;
    if (raw === null || ++this.notices > this.maxNotices) return this.distrust();
    const name = nameOf(raw);
    const rel = dirRel === '' ? name : `${dirRel}/${name}`;
    if (rel === '.git' || rel.startsWith('.git/') || this.underSkipped(rel)) return;
    this.changed.add(rel);
    // A folder moved or removed: its watches would go on naming files by the old path.
    if (this.watches.has(rel)) {
      for (const [key, watch] of this.watches) {
        if (key === rel || key.startsWith(`${rel}/`)) {
          watch.close();
          this.watches.delete(key);
        }
      }
    }
    let isDir = false;
    try {
      isDir = fs.lstatSync(fsPath(path.join(this.workTree, rel))).isDirectory();
    } catch {
      // Removed: it is in the changed set, which is all a removal needs.
    }
    if (isDir) this.watchTree(rel);
  }

  private underSkipped(rel: string): boolean {
    for (let at = rel; at !== '.' && at !== ''; at = path.posix.dirname(at)) if (this.skip.has(at)) return true;
    return false;
  }
}
