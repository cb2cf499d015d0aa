// Which checkpoint holds the code as it was at a transcript entry, and recording a turn's checkpoints.
//
// A turn records two: "turn-start" right after its prompt (before the agent changes anything) and
// "turn-end" when it ends. The code at entry X is the first checkpoint taken after X was committed —
// the first, in record order, whose last entry is X or a later entry of the current history (one taken
// before X has an earlier last entry, or one a rewind cut off). What changed between one turn's end and
// the next turn's start changed outside the agent.
import type { CheckpointRecord } from '../session/records';
import type { Session } from '../session/session';
import { log } from '../log';
import { CheckpointSkipped, relativeToWorkTree, takeCheckpoint } from './takeCheckpoint';
import { shadowFor } from './shadowRepo';
import type { Tool } from '../tools/types';

export interface CodePoint {
  /** The checkpoint holding the code at the entry. */
  checkpoint: CheckpointRecord;
  /** It and every later checkpoint of the current history, in record order (for what changed outside). */
  since: CheckpointRecord[];
}

/** Undefined when no checkpoint was taken after the entry (an older session, or the turn still running). */
export function codeAt(session: Session, entryId: string): CodePoint | undefined {
  const history = session.history();
  const position = new Map<string, number>();
  for (let i = 0; i < history.length; i++) position.set(history[i].id, i);
  const from = position.get(entryId);
  if (from === undefined) return undefined;
  const inView = session.checkpoints().filter(cp => cp.lastEntryId !== null && (position.get(cp.lastEntryId) ?? -1) >= from);
  return inView.length === 0 ? undefined : { checkpoint: inView[0], since: inView };
}

/** Whether entries follow `entryId` in the session's history (Fork from here on an earlier message). */
export function isEarlierEntry(session: Session, entryId: string): boolean {
  const history = session.history();
  const index = history.findIndex(entry => entry.id === entryId);
  return index >= 0 && index < history.length - 1;
}

/**
 * Records a checkpoint of the session's work tree. Never fails the turn: a folder git cannot record, or
 * one too big, gets no checkpoint (logged), and rewinds and forks before it say there is none.
 */
export async function checkpointTurn(
  storeDir: string, session: Session, kind: CheckpointRecord['kind'], touched: readonly string[] = [],
  // Taken now by default: the checkpoint may finish after the model's first answer was committed (see toolsAfter).
  lastEntryId: string | null = session.lastEntry()?.id ?? null,
): Promise<CheckpointRecord | undefined> {
  try {
    const shadow = await shadowFor(storeDir, session.header.root);
    // A worktree fork's folder starts at its base commit, which the fork's branch keeps (keepObjects.ts).
    if (session.bootstrap?.fork.worktree) shadow.baseOnBranch = true;
    const paths = touched.map(file => relativeToWorkTree(shadow, session.header.root, file)).filter((p): p is string => p !== undefined);
    const { tree, large } = await takeCheckpoint(shadow, paths);
    const record: CheckpointRecord = {
      tree, workTree: shadow.workTree, lastEntryId, kind, time: new Date().toISOString(),
      ...(large.length > 0 ? { large } : {}),
    };
    session.recordCheckpoint(record);
    return record;
  } catch (error) {
    const why = error instanceof CheckpointSkipped ? error.message : error instanceof Error ? error.message : String(error);
    log(`checkpoint of session ${session.id} not taken: ${why}`);
    return undefined;
  }
}

/**
 * The turn's tools, each waiting for `checkpoint` before it runs: the turn-start checkpoint overlaps the
 * first model request instead of delaying it, and still comes before any change a tool makes.
 */
export function toolsAfter(checkpoint: Promise<unknown>, tools: ReadonlyMap<string, Tool>): ReadonlyMap<string, Tool> {
  const gated = new Map<string, Tool>();
  for (const [name, tool] of tools) {
    gated.set(name, { ...tool, run: async (input, ctx) => {
      await checkpoint;
      return tool.run(input, ctx);
    } });
  }
  return gated;
}
