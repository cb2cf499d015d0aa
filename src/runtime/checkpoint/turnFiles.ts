// What each turn changed, read from its checkpoints: the diff between the turn's start and end trees in
// the shadow repository (renames detected, lines counted), and "Diff since here" — a turn's start tree
// against the work tree now (a fresh checkpoint) — with each file's content at the start for the left side.
import type { CheckpointFileResult, DiffSinceResult, TurnChanges, TurnFile, TurnFileStatus } from '../../common/protocol/checkpoints';
import type { CheckpointRecord } from '../session/records';
import type { Session } from '../session/session';
import { shadowFor, shadowGit, shadowGitBytes, shadowGitNames, shadowGitOk } from './shadowRepo';
import { hasRawBytes } from './pathBytes';
import { GITLINK_MODE, parseTree, TREE_MODE } from './treeObjects';
import type { TreeEntry } from './treeObjects';
import type { ShadowRepo } from './shadowRepo';
import { hasTree, takeCheckpoint } from './takeCheckpoint';

export class TurnFilesError extends Error {}

interface TurnPair { start: CheckpointRecord; end: CheckpointRecord }

/**
 * The session's turns that recorded both checkpoints and are still in its history, in order. A start
 * without an end (a crash, or the turn running now) pairs with nothing: the next start replaces it.
 */
export function checkpointedTurns(session: Session): TurnPair[] {
  const inHistory = new Set(session.history().map(entry => entry.id));
  const visible = (id: string | null) => id === null || inHistory.has(id);
  const pairs: TurnPair[] = [];
  let open: CheckpointRecord | undefined;
  for (const checkpoint of session.checkpoints()) {
    if (checkpoint.kind === 'turn-start') {
      open = checkpoint;
    } else if (open && open.workTree === checkpoint.workTree) {
      if (visible(open.lastEntryId) && visible(checkpoint.lastEntryId)) pairs.push({ start: open, end: checkpoint });
      open = undefined;
    }
  }
  return pairs;
}

export async function turnFiles(storeDir: string, session: Session): Promise<TurnChanges[]> {
  const turns = checkpointedTurns(session);
  if (turns.length === 0) return [];
  const shadow = await shadowFor(storeDir, session.header.root);
  const result: TurnChanges[] = [];
  for (const { start, end } of turns) {
    // A checkpoint of another folder (the session moved) or one swept away lists nothing rather than fail.
    const readable = start.workTree === shadow.workTree && (await hasTree(shadow, start.tree)) && (await hasTree(shadow, end.tree));
    result.push({ startEntryId: start.lastEntryId, endEntryId: end.lastEntryId, files: readable ? await changedFiles(shadow, start.tree, end.tree) : [] });
  }
  return result;
}

export async function diffSince(storeDir: string, session: Session, startEntryId: string | null): Promise<DiffSinceResult> {
  const turn = checkpointedTurns(session).find(pair => pair.start.lastEntryId === startEntryId);
  if (!turn) throw new TurnFilesError(`No turn of session ${session.id} starts after entry ${String(startEntryId)} with checkpoints recorded.`);
  const shadow = await shadowFor(storeDir, session.header.root);
  if (turn.start.workTree !== shadow.workTree) throw new TurnFilesError(`The checkpoint is of ${turn.start.workTree}, but the session now works in ${shadow.workTree}.`);
  if (!(await hasTree(shadow, turn.start.tree))) throw new TurnFilesError(`The checkpoint ${turn.start.tree} is no longer in the store (past fork.retention.days?).`);
  const now = await takeCheckpoint(shadow);
  return { workTree: shadow.workTree, tree: turn.start.tree, files: await changedFiles(shadow, turn.start.tree, now.tree) };
}

/** A file of one of the session's own checkpoints (never any other object of the store). */
export async function checkpointFile(storeDir: string, session: Session, tree: string, rel: string): Promise<CheckpointFileResult> {
  if (!session.checkpoints().some(checkpoint => checkpoint.tree === tree)) throw new TurnFilesError(`${tree} is not a checkpoint of session ${session.id}.`);
  const clean = rel.replace(/^\.\//, '');
  if (clean === '' || clean.startsWith('/') || clean.split('/').some(part => part === '..' || part === '')) throw new TurnFilesError(`Not a path inside the work tree: ${rel}`);
  const shadow = await shadowFor(storeDir, session.header.root);
  const { mode, type, id } = await entryAt(shadow, tree, clean);
  if (type !== 'blob' || !id) return { exists: false };
  const content = await shadowGit(shadow, ['cat-file', 'blob', id]);
  if (content.code !== 0) return { exists: false };
  if (content.stdout.includes('\0')) return { exists: true, binary: true };
  return { exists: true, content: mode === '120000' ? `(link to ${content.stdout})\n` : content.stdout };
}

/** The entry at `rel` in `tree` (all undefined when there is none). */
async function entryAt(shadow: ShadowRepo, tree: string, rel: string): Promise<{ mode?: string; type?: string; id?: string }> {
  if (!hasRawBytes(rel)) {
    const [meta] = (await shadowGitOk(shadow, ['ls-tree', '-z', tree, '--', rel])).split('\0')[0].split('\t');
    const [mode, type, id] = meta.split(' ');
    return { mode, type, id };
  }
  // A name that is not UTF-8 cannot be a pathspec on the command line: the trees are read down to it.
  let entry: TreeEntry | undefined = { mode: TREE_MODE, id: tree };
  for (const part of rel.split('/')) {
    if (entry?.mode !== TREE_MODE) return {};
    const object = await shadowGitBytes(shadow, ['cat-file', 'tree', entry.id]);
    if (object.code !== 0) return {};
    entry = parseTree(object.stdout).get(part);
  }
  if (!entry) return {};
  return { mode: entry.mode, type: entry.mode === TREE_MODE ? 'tree' : entry.mode === GITLINK_MODE ? 'commit' : 'blob', id: entry.id };
}

const STATUS: Record<string, TurnFileStatus> = { A: 'added', D: 'deleted', M: 'modified', T: 'type-changed', R: 'renamed', C: 'added' };

/** The files that differ from tree `from` to tree `to`, with renames and line counts; submodules left out. */
export async function changedFiles(shadow: ShadowRepo, from: string, to: string): Promise<TurnFile[]> {
  if (from === to) return [];
  const [raw, numstat] = await Promise.all([
    // Names keep their bytes (pathBytes.ts), as in the rewind's own list.
    shadowGitNames(shadow, ['diff-tree', '-r', '-z', '-M', '--raw', from, to]),
    shadowGitNames(shadow, ['diff-tree', '-r', '-z', '-M', '--numstat', from, to]),
  ]);
  const counts = parseNumstat(numstat);
  const files: TurnFile[] = [];
  const fields = raw.split('\0');
  for (let i = 0; i < fields.length; i++) {
    if (!fields[i].startsWith(':')) continue;
    const [oldMode, newMode, , , code] = fields[i].slice(1).split(' ');
    const twoPaths = code[0] === 'R' || code[0] === 'C';
    const oldPath = twoPaths ? fields[++i] : undefined;
    const filePath = fields[++i];
    if (oldMode === '160000' || newMode === '160000') continue;
    const count = counts.get(filePath);
    files.push({
      path: filePath, status: STATUS[code[0]] ?? 'modified',
      ...(code[0] === 'R' && oldPath !== undefined ? { oldPath } : {}),
      ...(count === undefined ? {} : count === 'binary' ? { binary: true } : { added: count.added, removed: count.removed }),
    });
  }
  return files;
}

function parseNumstat(stdout: string): Map<string, { added: number; removed: number } | 'binary'> {
  const counts = new Map<string, { added: number; removed: number } | 'binary'>();
  const fields = stdout.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(fields[i]);
    if (!match) continue;
    // A rename: the path field is empty and the old and new paths follow as fields of their own.
    let filePath = match[3];
    if (filePath === '') {
      i += 2;
      filePath = fields[i];
    }
    counts.set(filePath, match[1] === '-' ? 'binary' : { added: Number(match[1]), removed: Number(match[2]) });
  }
  return counts;
}
