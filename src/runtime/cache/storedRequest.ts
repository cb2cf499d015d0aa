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
 * How many leading blocks `current` shares with `previous`, the session's record before it. Leading blocks
 * of `previous` read as unknown (its base is another session's, not in memory: a fork continued after a
 * restart) count as shared when the blocks after them match at the same places — the hashes name each
 * block's message and role, so the layout before them is the same. Counting them as different would call
 * the continued request a changed tool list and write it in full.
 */
export function sharedWithPrevious(previous: readonly string[], current: readonly string[]): number {
  let unknown = 0;
  while (unknown < previous.length && previous[unknown] === UNKNOWN_BLOCK) unknown++;
  if (unknown === 0) return sharedBlocks(previous, current);
  const after = sharedBlocks(previous.slice(unknown), current.slice(unknown));
  return after > 0 ? unknown + after : 0;
}

/**
 * The record `stored` stands for. `baseOf` gives the record a base names, when it is in memory. Resolving
 * reads only that one base (already resolved when it was read), never a chain, so reading a file's records
 * costs their blocks once each: no chain length to cap, no full record needed every so often.
 */
export function resolveRequest(stored: StoredRequest, baseOf: (base: RequestBase) => RequestRecord | undefined): RequestRecord {
  if (!('extends' in stored)) return stored;
  const { extends: base, tail, ...rest } = stored;
  // A hand-edited or foreign line must not stop the session from loading: nonsense reads as nothing kept
  // (a prompt of 2^24 blocks is far past any model's context).
  const keep = Number.isSafeInteger(base?.keep) && base.keep > 0 && base.keep <= 2 ** 24 ? base.keep : 0;
  const known = base ? baseOf(base)?.blocks : undefined;
  const prefix = known && known.length >= keep ? known.slice(0, keep) : new Array<string>(keep).fill(UNKNOWN_BLOCK);
  return { ...rest, blocks: prefix.concat(Array.isArray(tail) ? tail : []) };
}
