// Where a chat's unsealed entries lie in its own transcript, so they can be sealed as a byte range of that
// file (segments.ts, v2) instead of copied: the file's length, where the unsealed run starts, and where each
// unsealed entry's line ends. Only a plain run can be named that way: its entry records, in file order, must
// be exactly the unsealed entries of the history (a rewind over unsealed entries, a damaged line or a mend
// on load break that until the tail is empty again; the session then seals a copy, the v1 way).
export class TranscriptTail {
  /** Bytes of committed records in the file. */
  fileEnd = 0;
  /** Where the unsealed run starts (just past the line of the last record that left nothing unsealed). */
  start = 0;
  /** Byte offset just past each unsealed entry's line, in history order. */
  ends: number[] = [];
  /** Whether the run from `start` holds exactly the unsealed entries as its entry records. */
  plain = true;

  /** A record (an entry when `entry`) was appended or replayed, its line ending at `end`. */
  recorded(end: number, entry: boolean): void {
    this.fileEnd = end;
    if (entry) this.ends.push(end);
  }

  /** Nothing is unsealed: a new run starts at the file's end. */
  emptied(): void {
    this.start = this.fileEnd;
    this.ends = [];
    this.plain = true;
  }

  /** The first `count` unsealed entries were sealed as bytes [start, ends[count - 1]). */
  sealed(count: number): void {
    this.start = this.ends[count - 1];
    this.ends = this.ends.slice(count);
  }

  /** Whether the next `count` unsealed entries (of `unsealed` in all) can be sealed as a range. */
  canSeal(count: number, unsealed: number): boolean {
    return this.plain && this.ends.length === unsealed && count > 0 && count <= unsealed;
  }
}
