// The copying fork, the anchors' way of starting a fork: the selected history deep-copied (structuredClone)
// and the whole fork transcript — header, every inherited entry, the closing message — written to a new file
// at once. Section 1 writes it unflushed, as a copying `/fork` (Qwen Code 0.24.4, measured in one process)
// does, so its fork is not durable when it starts; ours survives a crash when it starts and a power loss
// before its first request (docs/design.md §4.7), which is why that comparison is printed for both media. Section 6 flushes it (fdatasync), as a durable copy would be.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ForkTurns } from '../../src/common/forkTurns';
import { answeredEnd, closeSelection } from '../../src/runtime/fork/history/close';
import { renderDirective } from '../../src/runtime/fork/history/directive';
import { selectSpans } from '../../src/runtime/fork/history/select';
import type { Session } from '../../src/runtime/session/session';

/** Writes one copying fork of `parent` into `dir`, the same window as ours; returns its file. */
export function copyingFork(parent: Session, dir: string, turns: ForkTurns, directive: string, options: { flush?: boolean } = {}): string {
  const snapshot = parent.entries();
  const closed = closeSelection(selectSpans(snapshot, answeredEnd(snapshot, parent.history()), turns), renderDirective(directive), parent.history());
  const history = structuredClone(closed.inherited.toArray());
  let text = `${JSON.stringify({ type: 'header', header: { ...parent.header, id: 'copy' } })}\n`;
  for (const entry of history) text += `${JSON.stringify({ type: 'entry', entry })}\n`;
  text += `${JSON.stringify({ type: 'entry', entry: { role: 'user', content: closed.closing.content } })}\n`;
  const file = path.join(dir, `copy-${randomUUID()}.jsonl`);
  const fd = fs.openSync(file, 'wx');
  try {
    fs.writeSync(fd, text);
    if (options.flush) fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
