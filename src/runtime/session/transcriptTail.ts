// Where a chat's unsealed entries lie in its own transcript, so they can be sealed as a byte range of that
// file (segments.ts, v2) instead of copied: the file's length, where the unsealed run starts, and where each
// unsealed entry's line ends. Only a plain run can be named that way: its entry records, in file order, must
// be exactly the unsealed entries of the history (a rewind over unsealed entries, a damaged line or a mend
// on load break that until the tail is empty again; the session then seals a copy, the v1 way).
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';

export class TranscriptTail {
  /** Bytes of committed records in the file. */
  fileEnd = 0;
  /** Where the unsealed run starts (just past the line of the last record that left nothing unsealed). */
  start = 0;
  /** Byte offset just past each unsealed entry's line, in history order. */
  ends: number[] = [];
  /** Whether the run from `start` holds exactly the unsealed entries as its entry records. */
  plain = true;
  /**
   * sha256 of the run so far, fed with what this process appended since the run started (a run that began
   * before a load has none: sealing reads it back once). `fresh`: the run is empty, the hash not begun.
   */
  private running?: Hash;
  private fresh = false;

  /** A record (an entry when `entry`) was appended (`bytes`) or replayed, its line ending at `end`. */
  recorded(end: number, entry: boolean, bytes?: Buffer): void {
    this.fileEnd = end;
    if (entry) this.ends.push(end);
    if (bytes && this.fresh) this.running = createHash('sha256');
    if (bytes) this.running?.update(bytes);
    else this.running = undefined;
    this.fresh = false;
  }

  /** Nothing is unsealed: a new run starts at the file's end. */
  emptied(): void {
    this.start = this.fileEnd;
    this.ends = [];
    this.plain = true;
    this.running = undefined;
    this.fresh = true;
  }

  /** The run's sha256 when it ends at `to` and this process hashed all of it, else undefined (read it back). */
  digestThrough(to: number): string | undefined {
    if (!this.running || to !== this.fileEnd) return undefined;
    const digest = this.running.digest('hex');
    this.running = undefined;
    return digest;
  }

  /** The first `count` unsealed entries were sealed as bytes [start, ends[count - 1]). */
  sealed(count: number): void {
    this.start = this.ends[count - 1];
    this.ends = this.ends.slice(count);
    this.running = undefined;
  }

  /** Whether the next `count` unsealed entries (of `unsealed` in all) can be sealed as a range. */
  canSeal(count: number, unsealed: number): boolean {
    return this.plain && this.ends.length === unsealed && count > 0 && count <= unsealed;
  }
}
