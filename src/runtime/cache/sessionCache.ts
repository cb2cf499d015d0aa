// The cache explorer for one session: its request records, and for a fork the parent's request its first
// request should have extended (found by the entry that request ended at).
import type { CacheStep } from '../../common/cacheExplorer';
import type { RequestExplanation, RequestRecord } from '../session/records';
import type { Session } from '../session/session';
import type { Baseline } from './explorer';
import { explain, explainRequests } from './explorer';

/** The session's steps; `known`: steps already explained (kept and extended, not recomputed). */
export function cacheSteps(session: Session, parentOf: (id: string) => Session | undefined, known?: CacheStep[]): CacheStep[] {
  const steps = known && known.length <= session.requests().length ? known : [];
  return explainRequests(session.id, session.requests(), () => parentBaseline(session, parentOf), steps);
}

/**
 * A fork's first request, as it is recorded: its verdict against the parent's request, stored with it, so
 * `transcript --cache`, `list` and the panel read one explanation whether or not the parent is loaded later.
 */
export function explainFirstRequest(session: Session, record: RequestRecord, parentOf: (id: string) => Session | undefined): RequestExplanation | undefined {
  if (session.requests().length > 0 || !session.bootstrap) return undefined;
  return explain(record, parentBaseline(session, parentOf));
}

function parentBaseline(session: Session, parentOf: (id: string) => Session | undefined): Baseline | undefined {
  const boot = session.bootstrap;
  const parentId = session.header.parent?.sessionId;
  if (!boot || !parentId || boot.parentRequestEnd < 0) return undefined;
  const endEntry = session.history()[boot.parentRequestEnd];
  const parent = parentOf(parentId);
  if (!parent || !endEntry) return undefined;
  const requests = parent.requests();
  for (let i = requests.length - 1; i >= 0; i--) {
    if (requests[i].lastEntryId === endEntry.id) return { record: requests[i], sessionId: parentId, index: i };
  }
  return undefined;
}
