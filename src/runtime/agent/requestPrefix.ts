// What a request's leading messages cost to build, paid once per prefix (docs/design.md §4.5). A fork's
// first request is its parent's latest request plus the answer to it and the directive; siblings repeat
// the same leading messages too. So the messages for entries [0, count) of a history — their breakpoints,
// the thinking blocks kept, their bytes, their fingerprint hashes, the thinking chain's state after them —
// are kept on the parent (PrefixHome) by whichever request built them first, and the requests that repeat
// them add only what follows: O(directive), not O(history), on the runtime's only thread. The bytes stay
// exactly what a full build gives (test/runtime/requestBytes.test.ts compares what the fake received).
import type { Entry, Message } from '../../common/transcript';
import type { ChainState } from './thinkingBinding';

export interface RequestPrefix {
  /** Everything outside the messages that the prefix's bytes depend on (model, system, tools, TTL, marks). */
  key: string;
  /** Entries covered: [0, count) of the history. */
  count: number;
  /** The entries at both ends of that range, by identity: entries are immutable and unique. */
  ends: readonly Entry[];
  /** The messages the entries became (breakpoints placed, thinking the API would refuse left out). */
  messages: readonly Message[];
  /** encodeMessages of all but the last message (model/requestBytes.ts): a fork's directive may join that one. */
  lead: readonly Buffer[];
  /** Whether a block of these messages asks for the 1-hour TTL. */
  oneHour: boolean;
  /** Thinking blocks without a binding on record among them (request.ts asks for drop_block then). */
  unbound: number;
  /** The thinking chain after them (agent/thinkingBinding.ts), once walked. */
  chain?: ChainState;
  /** Fingerprint hashes and breakpoint positions of tools + system + these messages (cache/fingerprint.ts), once computed. */
  blocks?: readonly string[];
  breakpoints?: readonly number[];
  /** Blocks of tools + system + these messages. */
  blockCount: number;
}

/** Where a history's latest prefix is kept: on a parent session, shared with its forks. One slot. */
export interface PrefixHome { prefix?: RequestPrefix }

/** Entries compared by identity at each end of a prefix's range (as the sibling stagger's key does). */
const ENDS = 8;

export function prefixEnds(entries: readonly Entry[], count: number): Entry[] {
  if (count <= 2 * ENDS) return entries.slice(0, count);
  return [...entries.slice(0, ENDS), ...entries.slice(count - ENDS, count)];
}

/** The home's prefix when it covers exactly entries [0, count) of `entries` under `key`. */
export function matchingPrefix(home: PrefixHome, key: string, entries: readonly Entry[], count: number): RequestPrefix | undefined {
  const prefix = home.prefix;
  if (!prefix || prefix.count !== count || prefix.key !== key || count > entries.length) return undefined;
  const ends = prefixEnds(entries, count);
  if (ends.length !== prefix.ends.length) return undefined;
  for (let i = 0; i < ends.length; i++) if (ends[i] !== prefix.ends[i]) return undefined;
  return prefix;
}
