// How a request record is written to a session file: as a difference from an earlier request record (the
// session's previous one, or for a fork's first request the parent's request it extends), because a full
// record holds one hash per prompt block and grows with the history — a chat writing one per turn would
// grow its file quadratically, and every fork's first record would repeat its parent's whole history.
// Records written in full (older files) still load as they are.
import type { RequestBase, RequestRecord, StoredRequest } from '../session/records';

/**
 * Stands for a block whose hash is not in memory: the base was in another session that is not loaded
 * (or a damaged line lost it). Never equal to a real hash, so two records share such a block only when
 * one copied it from the other — exactly the blocks they really share, so explanations keep their counts.
 */
export const UNKNOWN_BLOCK = '?';

/** The stored form of `record`, given the record it extends and how many leading blocks the two share. */
export function storedRequest(record: RequestRecord, base: RequestBase | undefined, keep: number): StoredRequest {
  if (!base || keep <= 0) return record;
  const { blocks, ...rest } = record;
  return { ...rest, extends: { ...base, keep }, tail: blocks.slice(keep) };
}

/** How many leading blocks `a` and `b` have in common. */
export function sharedBlocks(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * The record `stored` stands for. `baseOf` gives the record a base names, when it is in memory. Resolving
 * reads only that one base (already resolved when it was read), never a chain, so reading a file's records
 * costs their blocks once each: no chain length to cap, no full record needed every so often.
 */
export function resolveRequest(stored: StoredRequest, baseOf: (base: RequestBase) => RequestRecord | undefined): RequestRecord {
  if (!('extends' in stored)) return stored;
  const { extends: base, tail, ...rest } = stored;
  const known = baseOf(base)?.blocks;
  const prefix = known && known.length >= base.keep ? known.slice(0, base.keep) : new Array<string>(base.keep).fill(UNKNOWN_BLOCK);
  return { ...rest, blocks: prefix.concat(tail) };
}
