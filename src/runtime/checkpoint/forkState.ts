// Where a worktree fork of an earlier message starts: that message's checkpoint, copied into the
// repository. The latest message (or none given) keeps today's behaviour — the parent's state now,
// with whatever changed since the last turn — and so does a message without a checkpoint (older sessions).
import type { Session } from '../session/session';
import { log } from '../log';
import { codeAt, isEarlierEntry } from './codeAt';
import { copyTreeToRepo } from './copyTree';
import { shadowFor } from './shadowRepo';
import { hasTree } from './takeCheckpoint';

export async function forkStateAt(storeDir: string, parent: Session, atEntryId: string | undefined): Promise<string | undefined> {
  if (atEntryId === undefined || !isEarlierEntry(parent, atEntryId)) return undefined;
  const point = codeAt(parent, atEntryId);
  if (!point) {
    log(`fork of ${parent.id} at ${atEntryId}: no checkpoint after that entry; the worktree starts from today's files`);
    return undefined;
  }
  const shadow = await shadowFor(storeDir, parent.header.root);
  if (shadow.workTree !== point.checkpoint.workTree || !(await hasTree(shadow, point.checkpoint.tree))) {
    log(`fork of ${parent.id} at ${atEntryId}: its checkpoint is gone; the worktree starts from today's files`);
    return undefined;
  }
  await copyTreeToRepo(shadow, point.checkpoint.tree);
  return point.checkpoint.tree;
}
