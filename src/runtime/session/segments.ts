// Sealed history segments (docs/design.md §3): <store>/segments/<sha256>.seg, written once, never
// rewritten. A segment is a header line {v, prev, base, count, owner} and `count` entry lines; its name is
// the sha256 of its bytes. `prev` chains a session's segments the way commits chain, so one head hash
// names a session's whole sealed history and a fork's bootstrap can name what it inherits by hash (plus
// position ranges) — history that cannot change under it, whatever later happens to the parent's file.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Entry } from '../../common/transcript';
import { deepFreeze } from '../../common/transcript';
import { ensurePrivateDir, openPrivateFile } from '../../ipc/privateFs';

export interface SegmentHeader {
  v: 1;
  /** The segment sealed before this one by the same session (null: the first). */
  prev: string | null;
  /** Position of this segment's first entry in its chain. */
  base: number;
  count: number;
  /** The session that sealed it: its segments live at least as long as its file. */
  owner: string;
}

/** A position range [from, to) of a chain. */
export interface ChainRange { from: number; to: number }

interface Known { header: SegmentHeader; entries?: readonly Entry[]; verified: boolean }

export class SegmentError extends Error {}

const HASH = /^[0-9a-f]{64}$/;

export class SegmentStore {
  readonly dir: string;
  private readonly known = new Map<string, Known>();

  constructor(storeDir: string, options: { readOnly?: boolean } = {}) {
    this.dir = path.join(storeDir, 'segments');
    // Segments hold the same history as transcripts: the user's alone, like the rest of the store.
    if (!options.readOnly) ensurePrivateDir(this.dir);
  }

  fileOf(hash: string): string {
    return path.join(this.dir, `${hash}.seg`);
  }

  /**
   * Writes a segment (unless one with the same bytes exists) and returns its hash. The file is complete
   * and flushed under a temporary name, then renamed: a crash leaves either nothing or the whole segment.
   */
  seal(header: SegmentHeader, entries: readonly Entry[]): string {
    let text = JSON.stringify(header) + '\n';
    for (const entry of entries) text += JSON.stringify(entry) + '\n';
    const bytes = Buffer.from(text, 'utf8');
    const hash = createHash('sha256').update(bytes).digest('hex');
    const file = this.fileOf(hash);
    if (!fs.existsSync(file)) {
      const temp = path.join(this.dir, `.${hash}.${process.pid}.tmp`);
      try {
        writeWhole(temp, bytes);
        fs.renameSync(temp, file);
      } catch (error) {
        // A full disk, say: no half segment stays; the caller keeps the entries unsealed and tries later.
        fs.rmSync(temp, { force: true });
        throw error;
      }
      syncDir(this.dir);
    }
    this.known.set(hash, { header, entries, verified: true });
    return hash;
  }

  /** A seal record replayed from its session's file: the entries are in memory already; the file is checked on first use by a fork. */
  remember(hash: string, header: SegmentHeader, entries: readonly Entry[]): void {
    const known = this.known.get(hash);
    if (known?.entries) return;
    this.known.set(hash, { header, entries, verified: known?.verified ?? false });
  }

  /** Drops the cached entries of a session's segments (its Session was evicted); headers stay. */
  forgetEntriesOf(owner: string): void {
    for (const known of this.known.values()) if (known.header.owner === owner) known.entries = undefined;
  }

  /**
   * The entries of `ranges` of the chain ending at `head`, in range order, every segment read checked
   * against its hash. Throws SegmentError naming the missing or damaged segment.
   */
  async resolve(head: string, ranges: readonly ChainRange[]): Promise<Entry[][]> {
    if (ranges.length === 0) return [];
    const lowest = Math.min(...ranges.map(r => r.from));
    const chain: Known[] = [];
    for (let hash: string | null = head; ;) {
      if (hash === null) throw new SegmentError(`the history chain ending at segment ${head} stops before position ${lowest}`);
      const segment = await this.load(hash);
      chain.push(segment);
      if (segment.header.base <= lowest) break;
      hash = segment.header.prev;
    }
    chain.reverse();
    return ranges.map(range => {
      const out: Entry[] = [];
      for (const segment of chain) {
        const { base, count } = segment.header;
        if (base + count <= range.from || base >= range.to) continue;
        const entries = segment.entries!;
        for (let i = Math.max(range.from, base); i < Math.min(range.to, base + count); i++) out.push(entries[i - base]);
      }
      if (out.length !== range.to - range.from) throw new SegmentError(`the history chain ending at segment ${head} does not hold positions ${range.from}–${range.to - 1}`);
      return out;
    });
  }

  /** Every segment `head`'s chain needs for positions from `lowest` on (for reference marking; not verified). */
  chainOf(head: string, lowest: number): string[] {
    const hashes: string[] = [];
    for (let hash: string | null = head; hash !== null;) {
      const header = this.headerOf(hash);
      if (!header) break;
      hashes.push(hash);
      if (header.base <= lowest) break;
      hash = header.prev;
    }
    return hashes;
  }

  /**
   * A segment read now and checked against its hash, for mending a damaged transcript on load (the one
   * synchronous read of a whole segment: only a session with a damaged line pays it). Undefined when missing or damaged.
   */
  readVerifiedSync(hash: string): { header: SegmentHeader; entries: readonly Entry[] } | undefined {
    if (!HASH.test(hash)) return undefined;
    try {
      const bytes = fs.readFileSync(this.fileOf(hash));
      if (createHash('sha256').update(bytes).digest('hex') !== hash) return undefined;
      const lines = bytes.toString('utf8').split('\n');
      const header = JSON.parse(lines[0]) as SegmentHeader;
      const entries = lines.slice(1, 1 + header.count).map(line => deepFreeze(JSON.parse(line) as Entry));
      return entries.length === header.count ? { header, entries } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Header of a segment on disk (first line only), or undefined when it is missing or unreadable. */
  headerOf(hash: string): SegmentHeader | undefined {
    const known = this.known.get(hash);
    if (known) return known.header;
    try {
      const fd = fs.openSync(this.fileOf(hash), 'r');
      try {
        const buffer = Buffer.alloc(1024);
        const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
        const newline = buffer.subarray(0, read).indexOf(10);
        if (newline < 0) return undefined;
        return JSON.parse(buffer.subarray(0, newline).toString('utf8')) as SegmentHeader;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  /** Hashes of every segment file (temporary files of unfinished writes excluded). */
  list(): string[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs.readdirSync(this.dir).filter(name => name.endsWith('.seg')).map(name => name.slice(0, -4)).filter(hash => HASH.test(hash));
  }

  remove(hash: string): void {
    fs.rmSync(this.fileOf(hash), { force: true });
    this.known.delete(hash);
  }

  /** Temporary files left by a crash mid-seal (never referenced: the seal record follows the rename). */
  removeUnfinished(): void {
    for (const name of fs.readdirSync(this.dir)) if (name.endsWith('.tmp')) fs.rmSync(path.join(this.dir, name), { force: true });
  }

  private async load(hash: string): Promise<Known> {
    const known = this.known.get(hash);
    if (known?.verified && known.entries) return known;
    if (!HASH.test(hash)) throw new SegmentError(`segment name ${JSON.stringify(hash)} is not a sha256 hash`);
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(this.fileOf(hash));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SegmentError(code === 'ENOENT' ? `segment ${hash} is missing` : `segment ${hash} cannot be read (${code ?? String(error)})`);
    }
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== hash) throw new SegmentError(`segment ${hash} is damaged (its bytes hash to ${actual})`);
    if (known?.entries) {
      known.verified = true;
      return known;
    }
    const lines = bytes.toString('utf8').split('\n');
    const header = JSON.parse(lines[0]) as SegmentHeader;
    const entries = lines.slice(1, 1 + header.count).map(line => deepFreeze(JSON.parse(line) as Entry));
    const loaded: Known = { header, entries, verified: true };
    this.known.set(hash, loaded);
    return loaded;
  }
}

/** Creates `file` (0600) with `bytes`, looping over short writes, flushed before it returns. */
export function writeWhole(file: string, bytes: Buffer, flags: 'w' | 'wx' = 'w'): void {
  const fd = openPrivateFile(file, flags);
  try {
    for (let offset = 0; offset < bytes.length;) {
      const n = fs.writeSync(fd, bytes, offset, bytes.length - offset);
      if (n <= 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
      offset += n;
    }
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename is still atomic.
  }
}
