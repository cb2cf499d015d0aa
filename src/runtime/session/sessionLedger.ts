// What a session was billed and what it sent: usage per request (what prices apply to) and the request
// records the cache explorer reads. Kept apart from the history: neither rewinds nor compaction touch it.
import type { BilledRequest } from '../../common/pricing';
import type { Usage } from '../../common/transcript';
import { addUsage, deepFreeze, zeroUsage } from '../../common/transcript';
import { resolveRequest, sharedWithPrevious, storedRequest, UNKNOWN_BLOCK } from '../cache/storedRequest';
import type { RequestBase, RequestRecord, StoredRequest } from './records';

export class SessionLedger {
  /** Everything this session was billed for (its own requests, retried and rewound ones included). */
  private billed: Usage = zeroUsage();
  /** The same, request by request with its time: a price depends on the day and prompt. */
  private readonly billList: BilledRequest[] = [];
  /** One record per request that got a response, oldest first. */
  private readonly sent: RequestRecord[] = [];
  /** Another session's request records when it is in memory: what a fork's first request record extends. */
  requestsOf?: (sessionId: string) => readonly RequestRecord[] | undefined;

  constructor(private readonly sessionId: string) {}

  get spent(): Usage {
    return this.billed;
  }

  get bills(): readonly BilledRequest[] {
    return this.billList;
  }

  requests(): readonly RequestRecord[] {
    return this.sent;
  }

  bill(usage: Usage, time: string): void {
    this.billed = addUsage(this.billed, usage);
    this.billList.push({ usage, time });
  }

  /** A request record read back from the file. */
  replayRequest(stored: StoredRequest): void {
    this.sent.push(frozen(resolveRequest(stored, base => this.requestBase(base))));
  }

  /**
   * Keeps `request` once `write` has written it (a failed write keeps nothing) as a difference (cache/storedRequest.ts) from this session's
   * previous request, or for a fork's first from the parent's request its verdict compared it with (the
   * blocks the verdict found shared).
   */
  recordRequest(request: RequestRecord, write: (stored: StoredRequest) => void): void {
    const previous = this.sent.length - 1;
    const parentBase = request.explained?.baseline;
    const before = previous >= 0 ? this.sent[previous] : undefined;
    const stored = before ? storedRequest(request, { index: previous }, sharedWithPrevious(before.blocks, request.blocks))
      : parentBase && parentBase.sessionId !== this.sessionId ? storedRequest(request, parentBase, request.explained?.matchedBlocks ?? 0)
      : request;
    write(stored);
    // Unknown blocks it shares with the previous record are kept unknown in memory too: what a reload reads.
    this.sent.push(frozen(before?.blocks[0] === UNKNOWN_BLOCK ? resolveRequest(stored, () => before) : request));
  }

  /** The record a stored request extends, when in memory; a same-session base must be the previous record read (a damaged line lost none). */
  private requestBase(base: RequestBase): RequestRecord | undefined {
    if (base.sessionId === undefined) return base.index === this.sent.length - 1 ? this.sent[base.index] : undefined;
    return this.requestsOf?.(base.sessionId)?.[base.index];
  }
}

/**
 * A record frozen whole. Its hash list holds one string per prompt block (150,000 for a 60,000-entry
 * history): frozen as one array, not walked key by key (strings are immutable already).
 */
function frozen(record: RequestRecord): RequestRecord {
  Object.freeze(record.blocks);
  Object.freeze(record.breakpoints);
  return deepFreeze(record);
}
