// Builds a fork (or regular subagent) session: selection, boundary closing, directive, and the
// bootstrap record — all written before the first request.
import { randomUUID } from 'node:crypto';
import type { ForkTurns } from '../../common/forkTurns';
import { forkTurnsToString } from '../../common/forkTurns';
import type { ChildKind, ForkOrigin, ForkSummary, Isolation } from '../../common/forks';
import type { Entry, SessionHeader } from '../../common/transcript';
import { zeroUsage } from '../../common/transcript';
import type { Session } from '../session/session';
import { newEntryId } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import { closeBoundary } from './close';
import { renderDirective } from './directive';
import { selectHistory, snapshotUpTo } from './select';

export interface ForkSpec {
  parent: Session;
  kind: ChildKind;
  directive: string;
  turns: ForkTurns;
  atEntryId?: string;
  isolation: Isolation;
  origin: ForkOrigin;
  name: string;
  callId?: string;
}

export function newForkId(): string {
  return 'f-' + randomUUID();
}

export function createForkSession(store: SessionStore, spec: ForkSpec): Session {
  if (spec.kind === 'fork') {
    const selected = selectHistory(snapshotUpTo(spec.parent.entries(), spec.atEntryId), spec.turns);
    const closed = closeBoundary(selected, renderDirective(spec.directive));
    return persist(store, spec, closed.inherited, closed.closing.content);
  }
  // Regular subagents see no conversation, only the environment facts and their own prompt.
  const startup = spec.parent.entries().filter(entry => entry.kind === 'startup');
  return persist(store, spec, startup, [{ type: 'text', text: spec.directive }]);
}

function persist(store: SessionStore, spec: ForkSpec, inherited: Entry[], closingContent: Entry['message']['content']): Session {
  const id = newForkId();
  const now = new Date().toISOString();
  const parentHeader = spec.parent.header;
  const header: SessionHeader = {
    ...parentHeader,
    id,
    createdAt: now,
    title: spec.name,
    parent: { sessionId: parentHeader.id, entryId: spec.atEntryId },
  };
  const fork: ForkSummary = {
    id,
    kind: spec.kind,
    name: spec.name,
    parentSessionId: parentHeader.id,
    parentEntryId: spec.atEntryId ?? spec.parent.lastEntry()?.id,
    origin: spec.origin,
    forkTurns: spec.kind === 'fork' ? forkTurnsToString(spec.turns) : 'none',
    isolation: spec.isolation,
    root: parentHeader.root,
    directive: spec.directive,
    state: 'queued',
    createdAt: now,
    modelTurns: 0,
    usage: zeroUsage(),
  };
  const closing: Entry = { id: newEntryId(), kind: 'prompt', time: now, message: { role: 'user', content: closingContent } };
  const session = store.create(header);
  session.writeBootstrap({ fork, inherited, closing, parentRequestEnd: parentRequestEnd(inherited), callId: spec.callId });
  return session;
}

/** The last user entry before the last response: where the parent's latest request ended. */
export function parentRequestEnd(inherited: readonly Entry[]): number {
  let lastResponse = -1;
  for (let i = inherited.length - 1; i >= 0; i--) {
    if (inherited[i].kind === 'response') {
      lastResponse = i;
      break;
    }
  }
  for (let i = lastResponse - 1; i >= 0; i--) if (inherited[i].message.role === 'user') return i;
  return -1;
}
