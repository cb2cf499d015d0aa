// A chat's history read from the end of its transcript alone, for forking it while it is not loaded
// (docs/design.md §3, "A fork of a chat not in memory"): the last seal record that says the history up to
// its segment is the chain's first positions (records.ts, SealPrefix), that segment's bytes (checked
// against its sha256: the boundary), and the entries after it. What lies before is named by chain range and
// read only when the fork first needs it. Anything the tail alone cannot vouch for — a torn or damaged
// line, a rewind, undo or repair after the seal, no such seal near the end — gives undefined: the caller
// then loads the chat as before.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { ApprovalMode } from '../../common/approval';
import type { Entry, SessionHeader } from '../../common/transcript';
import { deepFreeze } from '../../common/transcript';
import { readOpenFile } from './fileRead';
import type { RangeSegmentHeader } from './segments';
import { rangeSegmentName } from './segments';
import type { SealPrefix, SessionRecord } from './records';

/**
 * How far from the file's end the last prefix seal's segment may start: it and the unsealed tail are each
 * ≤ 32 KB plus one entry, but records that are not history lie between (a long chat's first request record
 * holds a hash per block: 1.4 MB at 60,000 entries).
 */
export const TAIL_WINDOW_BYTES = 8 * 1024 * 1024;
/** What is read first (most tails fit); each further read takes four times as much. */
const FIRST_READ_BYTES = 128 * 1024;

const SEAL_LINE = Buffer.from('{"type":"seal"');
const REQUEST_LINE = Buffer.from('{"type":"request"');

export interface ParentTailRead {
  header: SessionHeader;
  /** The last prefix seal's segment: the chain's head, and how many positions the chain holds. */
  head: string;
  sealedCount: number;
  /** Chain position of `known[0]`: the entries before it are named, not read. */
  knownFrom: number;
  /** The head segment's entries, then the unsealed ones after it, in history order (frozen). */
  known: Entry[];
  /** How many of `known` are unsealed (the last ones). */
  unsealed: number;
  /** The chat's approval mode as of the file's end (undefined: none recorded). */
  approvalMode?: ApprovalMode;
  /** The file's length when read: the fork names nothing beyond it. */
  fileBytes: number;
}

/**
 * The tail of `file` (a chat's transcript, `header` its first line), or undefined when it cannot be trusted
 * alone. Read synchronously: a bounded read from the page cache (well under a millisecond for the usual
 * 128 KB) costs less than queueing on the thread pool behind other sessions' flushes.
 */
export function readParentTail(file: string, header: SessionHeader): ParentTailRead | undefined {
  if (header.parent) return undefined;
  return readOpenFile(file, fd => {
    const { size } = fs.fstatSync(fd);
    // Read backwards, more each time, until the last seal line is whole in what was read.
    let from = size;
    let bytes = Buffer.alloc(0);
    let seal: PrefixSeal | 'read more' | undefined = 'read more';
    for (let want = FIRST_READ_BYTES; seal === 'read more'; want *= 4) {
      if (from === 0 || size - from >= TAIL_WINDOW_BYTES) return undefined;
      const start = Math.max(0, size - Math.min(want, TAIL_WINDOW_BYTES));
      bytes = Buffer.concat([readAt(fd, start, from), bytes]);
      from = start;
      // A torn last line is cut when the chat loads; until then the tail is not read alone.
      if (bytes.length === 0 || bytes[bytes.length - 1] !== 10) return undefined;
      seal = lastPrefixSeal(bytes, from);
    }
    if (!seal) return undefined;
    const segment = seal.segment;
    if (segment.from < from) {
      if (size - segment.from > TAIL_WINDOW_BYTES) return undefined;
      bytes = Buffer.concat([readAt(fd, segment.from, from), bytes]);
      from = segment.from;
    }
    const range = bytes.subarray(segment.from - from, segment.to - from);
    if (createHash('sha256').update(range).digest('hex') !== segment.sha256) return undefined;
    const sealed = entriesOf(range);
    if (!sealed || sealed.entries.length !== segment.count || sealed.other) return undefined;
    const after = entriesOf(bytes.subarray(segment.to - from), seal.prefix.approvalMode);
    if (!after || after.other) return undefined;
    const known = sealed.entries.concat(after.entries);
    if (known.some(entry => entry.kind === 'summary')) return undefined;
    return {
      header, head: seal.hash, sealedCount: segment.base + segment.count, knownFrom: segment.base, known: known.map(e => deepFreeze(e)),
      unsealed: after.entries.length, approvalMode: after.approvalMode, fileBytes: size,
    };
  });
}

interface PrefixSeal { hash: string; segment: RangeSegmentHeader; prefix: SealPrefix }

/**
 * The last seal line of `bytes` (which start at file offset `at`) when it is whole, names a range and says
 * `prefix`; 'read more' when no whole seal line is in `bytes`; undefined when the last one says no prefix.
 */
function lastPrefixSeal(bytes: Buffer, at: number): PrefixSeal | 'read more' | undefined {
  for (let end = bytes.length - 1; end > 0;) {
    const start = bytes.lastIndexOf(10, end - 1) + 1;
    // The window's first line may be cut: a line counts only when it starts at the file's start or after a newline.
    if (start === 0 && at > 0) return 'read more';
    if (bytes.subarray(start, start + SEAL_LINE.length).equals(SEAL_LINE)) {
      const record = parse(bytes.subarray(start, end));
      if (record?.type !== 'seal') return undefined;
      if (!record.segment || !record.prefix || rangeSegmentName(record.segment) !== record.hash) return undefined;
      // The segment's range must lie before its record, inside what this file holds.
      if (record.segment.to > at + start || record.segment.from > record.segment.to) return undefined;
      return { hash: record.hash, segment: record.segment, prefix: record.prefix };
    }
    end = start - 1;
  }
  return at > 0 ? 'read more' : undefined;
}

/**
 * The entry records of whole lines `bytes`, and the latest approval mode (from `approvalMode` on). `other`:
 * a record that changes the history some other way (rewind, undo, repair, a bootstrap or header). Undefined
 * when a line does not parse.
 */
function entriesOf(bytes: Buffer, approvalMode?: ApprovalMode): { entries: Entry[]; other: boolean; approvalMode?: ApprovalMode } | undefined {
  const entries: Entry[] = [];
  let other = false;
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    // A request record (the cache explorer's; one of a long first request holds a hash per block) changes
    // no history: it is not parsed.
    if (end > start && !bytes.subarray(start, start + REQUEST_LINE.length).equals(REQUEST_LINE)) {
      const record = parse(bytes.subarray(start, end));
      if (!record) return undefined;
      if (record.type === 'entry') entries.push(record.entry);
      else if (record.type === 'approval') approvalMode = record.approvalMode;
      else if (record.type === 'rewind' || record.type === 'rewind-undo' || record.type === 'repair' || record.type === 'bootstrap' || record.type === 'header') other = true;
    }
    start = end + 1;
  }
  return { entries, other, approvalMode };
}

function parse(line: Buffer): SessionRecord | undefined {
  try {
    const record = JSON.parse(line.toString('utf8')) as SessionRecord;
    return record && typeof record === 'object' && typeof record.type === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

function readAt(fd: number, from: number, to: number): Buffer {
  const bytes = Buffer.allocUnsafe(to - from);
  for (let at = 0; at < bytes.length;) {
    const bytesRead = fs.readSync(fd, bytes, at, bytes.length - at, from + at);
    if (bytesRead <= 0) throw new Error('the transcript ended while its tail was read');
    at += bytesRead;
  }
  return bytes;
}
