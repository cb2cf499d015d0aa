// The cache explorer for one session: its request records, and for a fork the parent's request its first
// request should have extended (found by the entry that request ended at).
import type { CacheStep } from '../../common/cacheExplorer';
import type { Session } from '../session/session';
import type { Baseline } from './explorer';
import { explainRequests } from './explorer';

export function cacheSteps(session: Session, parentOf: (id: string) => Session | undefined): CacheStep[] {
  return explainRequests(session.id, session.requests(), parentBaseline(session, parentOf));
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
