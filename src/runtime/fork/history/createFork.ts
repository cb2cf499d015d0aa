// Builds a fork (or regular subagent) session: selection, boundary closing, directive, and the
// bootstrap record — all written before the first request.
import { randomUUID } from 'node:crypto';
import type { Budget } from '../../../common/budget';
import type { ForkTurns } from '../../../common/forkTurns';
import type { ForkTournament } from '../../../common/tournament';
import { forkTurnsToString } from '../../../common/forkTurns';
import * as path from 'node:path';
import type { ChildKind, ForkOrigin, ForkSummary, ForkWorktree, Isolation } from '../../../common/forks';
import type { Entry, SessionHeader } from '../../../common/transcript';
import { Session, newEntryId } from '../../session/session';
import type { SessionStore } from '../../session/sessionStore';
import type { LaunchPolicy } from '../../policy';
import { requestViewOf, viewHasSummary } from '../../../common/requestView';
import { Picked } from '../../session/picked';
import type { EntryList } from '../../session/picked';
import type { HistorySnapshot } from '../../session/session';
import type { ForkStartSummary, HistoryRefs } from '../../session/records';
import { answeredEnd, closeSelection } from './close';
import { renderAttemptNote, renderDirective } from './directive';
import { selectSpans, snapshotUpTo } from './select';
import { TailParent } from './tailParent';

/** What a fork reads of its parent: the loaded chat, or (not loaded, an `all` fork) its transcript's tail. */
export type ForkParent = Session | TailParent;

export interface ForkSpec {
  parent: ForkParent;
  kind: ChildKind;
  directive: string;
  turns: ForkTurns;
  atEntryId?: string;
  isolation: Isolation;
  origin: ForkOrigin;
  name: string;
  callId?: string;
  /** Spending limit. */
  budget?: Budget;
  /** Chosen by the caller when it needs the id first (a worktree's branch carries it). */
  id?: string;
  /**
   * The parent's committed entries when the fork was asked for; absent: taken now. A caller that awaits
   * (creating a worktree) takes it first, so entries the parent commits meanwhile stay out.
   */
  snapshot?: HistorySnapshot;
  /** What the launching client allowed; recorded in the bootstrap (absent: revival assumes ask). */
  policy?: LaunchPolicy;
  /** The sandbox notice of its directive (sandbox/notice.ts), when its commands run sandboxed. */
  sandboxNotice?: string[];
  /** Another model than the parent's: in the fork's header (its requests, revival) and its summary. */
  model?: string;
  /** A tournament attempt: its note follows the directive, after the prefix the attempts share. */
  tournament?: ForkTournament;
  /** The fork's own file is created once this settles (its start journal's copy is written at once). */
  createFileAfter?: Promise<unknown>;
}

export function newForkId(): string {
  return 'f-' + randomUUID();
}

/** With a worktree (already created), the fork's root and tools move into it and the directive says so. */
export function createForkSession(store: SessionStore, spec: ForkSpec, worktree?: ForkWorktree): Session {
  // The committed history, compacted parts included (Fork from here may pick a message from before a
  // compaction, docs/design.md §4.2); what a fork inherits is the request view of the snapshot up to that point.
  const taken = spec.snapshot ?? spec.parent.snapshot();
  // The parent's array only grows in place (a rewind replaces it): cut it back when it grew meanwhile.
  const entries = taken.length === taken.entries.length ? taken.entries : taken.entries.slice(0, taken.length);
  const root = worktree ? forkRootIn(worktree, spec.parent.header.root) : spec.parent.header.root;
  if (spec.kind === 'fork') {
    // Selection and closing name spans of the request view, never copying it; the parent's
    // own request view is cached, so forking its current history does not rebuild it.
    const current = spec.atEntryId === undefined && entries === spec.parent.history();
    const snapshot = current ? spec.parent.entries() : requestViewOf(snapshotUpTo(entries, spec.atEntryId));
    // Unanswered prompts go before the window is counted, so "1" keeps one real turn when there is one.
    const selected = selectSpans(snapshot, answeredEnd(snapshot, entries), spec.turns);
    const attempt = spec.tournament;
    // A tournament's attempts differ only after the directive: each one's own root goes in its note.
    const notice = worktree && { parentRoot: spec.parent.header.root, ...(attempt ? {} : { forkRoot: root }) };
    const closed = closeSelection(selected, renderDirective(spec.directive, notice, spec.sandboxNotice), entries);
    // docs/design.md §4.2: a numeric window never carries the compaction summary; the UIs say so.
    const summaryExcluded = spec.turns !== 'all' && viewHasSummary(snapshot);
    const content = closed.closing.content;
    const closing = attempt ? [...content, { type: 'text' as const, text: renderAttemptNote(attempt.attempt, attempt.of, attempt.hint, worktree && root) }] : content;
    return persist(store, spec, entries, { root, worktree, summaryExcluded }, closed.inherited, closing);
  }
  // Regular subagents see no conversation, only the environment facts and their own prompt.
  const startup = entries.filter(entry => entry.kind === 'startup');
  return persist(store, spec, entries, { root, worktree }, Picked.prefix(startup), [{ type: 'text', text: spec.directive }]);
}

/** The parent's root translated into the worktree (the parent may work in a subfolder of its repository). */
export function forkRootIn(worktree: ForkWorktree, parentRoot: string): string {
  const rel = path.relative(worktree.repoRoot, parentRoot);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return worktree.path;
  return path.join(worktree.path, rel);
}

interface Placement { root: string; worktree?: ForkWorktree; summaryExcluded?: boolean }

function persist(
  store: SessionStore, spec: ForkSpec, entries: readonly Entry[], placement: Placement, inherited: Picked, closingContent: Entry['message']['content'],
): Session {
  const id = spec.id ?? newForkId();
  const now = new Date().toISOString();
  const parentHeader = spec.parent.header;
  const otherModel = spec.model !== undefined && spec.model !== parentHeader.settings.model ? spec.model : undefined;
  const header: SessionHeader = {
    ...parentHeader,
    ...(otherModel ? { settings: { ...parentHeader.settings, model: otherModel } } : {}),
    id,
    root: placement.root,
    createdAt: now,
    title: spec.name,
    parent: { sessionId: parentHeader.id, entryId: spec.atEntryId },
  };
  const fork: ForkStartSummary = {
    id,
    kind: spec.kind,
    name: spec.name,
    parentSessionId: parentHeader.id,
    parentEntryId: spec.atEntryId ?? entries[entries.length - 1]?.id,
    origin: spec.origin,
    forkTurns: spec.kind === 'fork' ? forkTurnsToString(spec.turns) : 'none',
    ...(placement.summaryExcluded ? { summaryExcluded: true } : {}),
    isolation: spec.isolation,
    root: placement.root,
    ...(placement.worktree ? { worktree: placement.worktree } : {}),
    directive: spec.directive,
    state: 'queued',
    createdAt: now,
    ...(spec.budget ? { budget: spec.budget } : {}),
    model: header.settings.model,
    ...(otherModel ? { parentModel: parentHeader.settings.model } : {}),
    ...(spec.tournament ? { tournament: spec.tournament } : {}),
  };
  const closing: Entry = { id: newEntryId(), kind: 'prompt', time: now, message: { role: 'user', content: closingContent } };
  // By reference to the parent's sealed segments (docs/design.md §3): the bootstrap stays small.
  const history: HistoryRefs | undefined = spec.parent.historyRefs(inherited);
  const bootstrap = { fork, closing, parentRequestEnd: parentRequestEnd(inherited), callId: spec.callId, policy: spec.policy };
  // Written with the header in one write; flushed on the thread pool (store.durable), awaited before the
  // fork is announced or sends (ARCHITECTURE.md, "What a started fork promises").
  const session = store.create(header, [Session.bootstrapRecord(bootstrap, history ? [] : inherited.toArray(), history)], { flushOffThread: true, createFileAfter: spec.createFileAfter });
  session.applyBootstrap(bootstrap, inherited);
  // A parent known from its tail: the rest of what the fork inherits is read before anything reads its history.
  const tail = spec.parent instanceof TailParent ? spec.parent : undefined;
  if (tail) session.inheritLater(() => tail.fill(store).then(home => void (session.prefixHome = home)));
  // Its first request repeats the parent's latest: the messages the parent (or a sibling) built are reused.
  session.parentPrefixHome = spec.parent.prefixHome;
  return session;
}

/**
 * Where the parent's latest request ended: at the last inherited entry when that is a user entry (a
 * prompt or tool results whose request was sent, perhaps still in flight), else at the last user entry
 * before the last response. -1 when there is none.
 */
export function parentRequestEnd(inherited: EntryList): number {
  const last = inherited.length - 1;
  if (last >= 0 && inherited.at(last)!.message.role === 'user') return last;
  let lastResponse = -1;
  for (let i = last; i >= 0; i--) {
    if (inherited.at(i)!.kind === 'response') {
      lastResponse = i;
      break;
    }
  }
  for (let i = lastResponse - 1; i >= 0; i--) if (inherited.at(i)!.message.role === 'user') return i;
  return -1;
}
