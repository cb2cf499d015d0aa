// Rewinding a chat to an entry — its files to that entry's checkpoint, its conversation to that entry —
// and undoing the latest rewind. The transcript stays append-only: a rewind record says where the
// conversation continues from and which trees the files went between, so the undo can reverse both.
import type { RewindResult } from '../../common/protocol/checkpoints';
import type { LargeFileRef, RewoundCode } from '../session/records';
import type { Session } from '../session/session';
import { codeAt } from './codeAt';
import { changedOutside, largePaths, restorePaths, treeChanges } from './restoreFiles';
import { hasTree, takeCheckpoint } from './takeCheckpoint';
import { shadowFor } from './shadowRepo';
import type { ShadowRepo } from './shadowRepo';

export class RewindError extends Error {}

export interface RewindRequest { atEntryId?: string; undo?: boolean; code: boolean; conversation: boolean; confirm: boolean }

export async function rewindSession(storeDir: string, session: Session, request: RewindRequest): Promise<RewindResult> {
  return request.undo ? undoLatest(storeDir, session, request.confirm) : rewindTo(storeDir, session, request);
}

async function rewindTo(storeDir: string, session: Session, request: RewindRequest): Promise<RewindResult> {
  const at = request.atEntryId;
  if (typeof at !== 'string' || !session.history().some(entry => entry.id === at)) {
    throw new RewindError(`Entry ${String(at)} is not in session ${session.id}.`);
  }
  let code: RewoundCode | undefined;
  let result: RewindResult = { done: true, files: [], outside: [], leftAlone: [] };
  if (request.code) {
    const point = codeAt(session, at);
    if (!point) throw new RewindError(`No code checkpoint was recorded after entry ${at} (a session from before checkpoints, or a turn still running): the files cannot be rewound. Rewind the conversation only with --conversation.`);
    const shadow = await shadowOf(storeDir, session, point.checkpoint.workTree);
    const now = await takeCheckpoint(shadow);
    const outsideAll = await changedOutside(shadow, point.since, now.tree);
    const moved = await moveFiles(shadow, now, point.checkpoint.tree, point.checkpoint.large ?? [], outsideAll, request.confirm);
    if (!moved.result.done) return moved.result;
    result = moved.result;
    code = moved.code;
  }
  // The next request is built from the rewound history: the entries after the point, their thinking blocks
  // with them, are no longer in session.entries(), so nothing of the rewound turns is sent. The entries
  // kept are a prefix of what was sent before, unchanged, so their thinking blocks keep the prefix they were
  // made with — what a returned thinking block needs to stay usable ("nothing changed before the block":
  // https://platform.claude.com/docs/de/build-with-claude/preserved-thinking, read 2026-12-01).
  const toEntryId = request.conversation ? at : (session.lastEntry()?.id ?? null);
  session.rewindTo(toEntryId, code);
  return { ...result, lastEntryId: session.lastEntry()?.id };
}

async function undoLatest(storeDir: string, session: Session, confirm: boolean): Promise<RewindResult> {
  const latest = session.undoableRewind();
  if (!latest) throw new RewindError(`Session ${session.id} has no rewind to undo (a message sent after a rewind makes it final).`);
  let code: RewoundCode | undefined;
  let result: RewindResult = { done: true, files: [], outside: [], leftAlone: [] };
  if (latest.code) {
    const shadow = await shadowOf(storeDir, session, latest.code.workTree);
    const now = await takeCheckpoint(shadow);
    // What changed since the rewind was not the rewind's doing: asked about before it is replaced.
    const since = new Set((await treeChanges(shadow, latest.code.after, now.tree)).map(change => change.path));
    const moved = await moveFiles(shadow, now, latest.code.before, [], since, confirm);
    if (!moved.result.done) return moved.result;
    result = moved.result;
    code = moved.code;
  }
  session.undoRewind(code);
  return { ...result, lastEntryId: session.lastEntry()?.id };
}

async function shadowOf(storeDir: string, session: Session, workTree: string): Promise<ShadowRepo> {
  const shadow = await shadowFor(storeDir, session.header.root);
  if (shadow.workTree !== workTree) throw new RewindError(`The checkpoint is of ${workTree}, but the session now works in ${shadow.workTree}.`);
  return shadow;
}

/** Puts the work tree at `target`, asking first (a result not done) when any file to change is in `outside`. */
async function moveFiles(
  shadow: ShadowRepo, now: { tree: string; large: LargeFileRef[] }, target: string, targetLarge: readonly LargeFileRef[], outsideAll: Set<string>, confirm: boolean,
): Promise<{ result: RewindResult; code?: RewoundCode }> {
  if (!(await hasTree(shadow, target))) throw new RewindError(`The checkpoint ${target} is no longer in the store (past fork.retention.days?): the files cannot be rewound.`);
  const large = largePaths(targetLarge, now.large);
  const changes = await treeChanges(shadow, now.tree, target);
  // Kept by reference on either side, so in neither tree: left as they are, and named when they differ.
  const same = (ref: LargeFileRef) => targetLarge.some(t => t.path === ref.path && t.size === ref.size && t.mtimeMs === ref.mtimeMs);
  const leftAlone = [...new Set([
    ...changes.filter(change => large.has(change.path)).map(change => change.path),
    ...now.large.filter(ref => !same(ref)).map(ref => ref.path),
    ...targetLarge.filter(ref => !now.large.some(n => n.path === ref.path)).map(ref => ref.path),
  ])].sort();
  const files = changes.filter(change => !large.has(change.path));
  const outside = files.filter(change => outsideAll.has(change.path)).map(change => change.path);
  const listed = files.map(({ path, status }) => ({ path, status }));
  if (outside.length > 0 && !confirm) return { result: { done: false, needsConfirmation: true, files: listed, outside, leftAlone } };
  // Paths now behind a link out of the work tree are not deleted through it: left alone, and said so.
  const refused = await restorePaths(shadow, target, files);
  const after = await takeCheckpoint(shadow);
  return {
    result: { done: true, files: listed.filter(file => !refused.includes(file.path)), outside, leftAlone: [...leftAlone, ...refused] },
    code: { workTree: shadow.workTree, before: now.tree, after: after.tree, paths: files.map(change => change.path) },
  };
}
