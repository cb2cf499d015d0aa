// Sealed history segments (docs/design.md §3), immutable and named by sha256. Two kinds:
// - v2 (sealed as a chat goes): a byte range of the owner's append-only transcript, described by a header
//   written inline in the transcript's seal record; its name is the sha256 of that header, which holds the
//   sha256 of the range. History is then on disk once (the transcript), and forks reference it.
// - v1 (older stores, and the fallback when a session's unsealed tail is not a plain run of its file's lines:
//   a damaged line, a rewind over unsealed entries): <store>/segments/<sha256>.seg, a header line
//   {v, prev, base, count, owner} and `count` entry lines, a copy; its name is the sha256 of its bytes.
// A deleted chat whose forks still reference it keeps its transcript in <store>/segments/retired/ until
// no fork names it (retention.ts). `prev` chains a session's segments the way commits chain, so one head hash
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

/** A v2 segment: entries read from bytes [from, to) of `owner`'s transcript (other records there are skipped). */
export interface RangeSegmentHeader {
  v: 2;
  prev: string | null;
  base: number;
  count: number;
  owner: string;
  from: number;
  to: number;
  /** sha256 of the range's bytes: what makes the header name them. */
  sha256: string;
}

export type AnySegmentHeader = SegmentHeader | RangeSegmentHeader;

/** A position range [from, to) of a chain. */
export interface ChainRange { from: number; to: number }

interface Known { header: AnySegmentHeader; entries?: readonly Entry[]; verified: boolean }

export class SegmentError extends Error {}

const HASH = /^[0-9a-f]{64}$/;

const SEAL_LINE = Buffer.from('{"type":"seal"');

export class SegmentStore {
  readonly dir: string;
  readonly retiredDir: string;
  private readonly sessionsDir: string;
  private readonly known = new Map<string, Known>();

  constructor(storeDir: string, options: { readOnly?: boolean } = {}) {
    this.dir = path.join(storeDir, 'segments');
    this.retiredDir = path.join(this.dir, 'retired');
    this.sessionsDir = path.join(storeDir, 'sessions');
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

  /**
   * Seals entries already committed to `header.owner`'s transcript, as bytes [from, to) of it. `sha256`:
   * theirs, hashed as they were appended; without it they are read back (from the page cache) and hashed.
   * Nothing else is written: the caller's seal record carries the returned header.
   */
  sealRange(header: Omit<RangeSegmentHeader, 'v' | 'sha256'>, entries: readonly Entry[], sha256?: string): { hash: string; header: RangeSegmentHeader } {
    const digest = sha256 ?? createHash('sha256').update(readRangeSync(this.transcriptOf(header.owner), header.from, header.to)).digest('hex');
    const sealed: RangeSegmentHeader = { v: 2, ...header, sha256: digest };
    const hash = rangeSegmentName(sealed);
    this.known.set(hash, { header: sealed, entries, verified: true });
    return { hash, header: sealed };
  }

  /** Where `owner`'s transcript is: its session file, or (a deleted chat whose forks reference it) retired. */
  transcriptOf(owner: string): string {
    const live = path.join(this.sessionsDir, `${owner}.jsonl`);
    return fs.existsSync(live) ? live : path.join(this.retiredDir, `${owner}.jsonl`);
  }

  /** Whether `owner`'s transcript is `bytes` long. */
  transcriptEndsAt(owner: string, bytes: number): boolean {
    try {
      return fs.statSync(this.transcriptOf(owner)).size === bytes;
    } catch {
      return false;
    }
  }

  /** Moves a deleted chat's transcript out of the sessions (it is no longer listed) while forks reference it. */
  retire(owner: string): void {
    ensurePrivateDir(this.retiredDir);
    fs.renameSync(path.join(this.sessionsDir, `${owner}.jsonl`), path.join(this.retiredDir, `${owner}.jsonl`));
  }

  /** Ids of retired transcripts. */
  retired(): string[] {
    if (!fs.existsSync(this.retiredDir)) return [];
    return fs.readdirSync(this.retiredDir).filter(name => name.endsWith('.jsonl')).map(name => name.slice(0, -'.jsonl'.length));
  }

  removeRetired(owner: string): void {
    fs.rmSync(path.join(this.retiredDir, `${owner}.jsonl`), { force: true });
    for (const [hash, known] of this.known) if (known.header.owner === owner && known.header.v === 2) this.known.delete(hash);
  }

  /** Whether `hash` is known here or as a v1 file (else its owner's seal records must be read: learnChain). */
  has(hash: string): boolean {
    return this.known.has(hash) || (HASH.test(hash) && fs.existsSync(this.fileOf(hash)));
  }

  /**
   * Learns the v2 segments `owner` sealed from the seal records of its transcript (a fork revived while its
   * parent is not loaded). Only seal lines are parsed; a header that does not hash to its name is skipped.
   */
  async learnChain(owner: string): Promise<void> {
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(this.transcriptOf(owner));
    } catch {
      return;
    }
    for (let start = 0; start < bytes.length;) {
      let end = bytes.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (bytes.subarray(start, start + SEAL_LINE.length).equals(SEAL_LINE)) {
        try {
          const record = JSON.parse(bytes.subarray(start, end).toString('utf8')) as { hash: string; segment?: RangeSegmentHeader };
          if (record.segment && rangeSegmentName(record.segment) === record.hash && !this.known.has(record.hash)) this.known.set(record.hash, { header: record.segment, verified: false });
        } catch {
          // A damaged seal line names nothing; forks that need it are told the segment is missing.
        }
      }
      start = end + 1;
    }
  }

  /** A seal record replayed from its session's file: the entries are in memory already; the file is checked on first use by a fork. */
  remember(hash: string, header: AnySegmentHeader, entries: readonly Entry[]): void {
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
  async resolve(head: string, ranges: readonly ChainRange[], owner?: string): Promise<Entry[][]> {
    if (ranges.length === 0) return [];
    if (owner && !this.has(head)) await this.learnChain(owner);
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

  /** Header of a segment known here or on disk (first line only), or undefined when it is missing or unreadable. */
  headerOf(hash: string): AnySegmentHeader | undefined {
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
    if (known?.header.v === 2) return this.loadRange(hash, known, known.header);
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

  /** A v2 segment's bytes read from its owner's transcript, checked against the header's sha256. */
  private async loadRange(hash: string, known: Known, header: RangeSegmentHeader): Promise<Known> {
    let bytes: Buffer;
    try {
      bytes = await readRange(this.transcriptOf(header.owner), header.from, header.to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SegmentError(code === 'ENOENT' ? `segment ${hash} is missing (the transcript of ${header.owner} is gone)` : `segment ${hash} cannot be read (${code ?? String(error)})`);
    }
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== header.sha256) throw new SegmentError(`segment ${hash} is damaged (bytes ${header.from}–${header.to} of the transcript of ${header.owner} changed)`);
    if (!known.entries) {
      const entries: Entry[] = [];
      for (const line of bytes.toString('utf8').split('\n')) {
        if (line.length === 0) continue;
        const record = JSON.parse(line) as { type: string; entry?: Entry };
        if (record.type === 'entry' && record.entry) entries.push(deepFreeze(record.entry));
      }
      if (entries.length !== header.count) throw new SegmentError(`segment ${hash} holds ${entries.length} entries, not ${header.count}`);
      known.entries = entries;
    }
    known.verified = true;
    return known;
  }
}

/** A v2 segment's name: the sha256 of its header as the seal record writes it. */
export function rangeSegmentName(header: RangeSegmentHeader): string {
  return createHash('sha256').update(JSON.stringify(header)).digest('hex');
}

function readRangeSync(file: string, from: number, to: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(to - from);
    for (let at = 0; at < bytes.length;) {
      const n = fs.readSync(fd, bytes, at, bytes.length - at, from + at);
      if (n <= 0) throw Object.assign(new Error(`${file} ends before byte ${to}`), { code: 'ESHORT' });
      at += n;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

async function readRange(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const bytes = Buffer.alloc(to - from);
    for (let at = 0; at < bytes.length;) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, from + at);
      if (bytesRead <= 0) throw Object.assign(new Error(`${file} ends before byte ${to}`), { code: 'ESHORT' });
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
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
