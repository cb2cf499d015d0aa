// A fork's parent that is not loaded, known from its transcript's tail (session/parentTail.ts): what
// createFork reads of a parent, without streaming the chat in (docs/design.md §3, "A fork of a chat not in
// memory"). Its history is a list as long as the chat's whose last entries are known; the earlier ones are
// named by chain range in the bootstrap and filled in from the segments before the fork's first request.
import * as fs from 'node:fs';
import type { ApprovalMode } from '../../../common/approval';
import type { Entry, SessionHeader } from '../../../common/transcript';
import type { PrefixHome } from '../../agent/requestPrefix';
import { readParentTail } from '../../session/parentTail';
import type { ParentTailRead } from '../../session/parentTail';
import type { Picked } from '../../session/picked';
import type { HistoryPart, HistoryRefs } from '../../session/records';
import type { HistorySnapshot } from '../../session/session';
import type { SessionStore } from '../../session/sessionStore';
import { answeredEnd } from './close';

export class TailParent {
  /** Only the last entries are set until `fill` has run; the selection and closing rules read only those. */
  private readonly list: Entry[];
  /** Nothing is built for a chat this runtime has not sent: a fork's first request builds its prefix. */
  readonly prefixHome: PrefixHome = {};
  readonly bootstrap = undefined;

  private constructor(private readonly read: ParentTailRead, private readonly file: string) {
    this.list = new Array<Entry>(read.sealedCount + read.unsealed);
    for (let i = 0; i < read.known.length; i++) this.list[read.knownFrom + i] = read.known[i];
  }

  /**
   * The chat `id` from its file's tail, or undefined when the tail alone cannot be trusted or does not hold
   * what an `all` fork's boundary reads (the latest answered prompt, the parent's latest request): load it then.
   */
  static open(store: SessionStore, id: string): TailParent | undefined {
    const header = store.headerOf(id);
    if (!header || header.parent) return undefined;
    const file = store.fileOf(id);
    const read = readParentTail(file, header);
    if (!read || !boundaryInside(read.known)) return undefined;
    return new TailParent(read, file);
  }

  get id(): string {
    return this.read.header.id;
  }

  get header(): SessionHeader {
    return this.read.header;
  }

  get approvalMode(): ApprovalMode | undefined {
    return this.read.approvalMode;
  }

  snapshot(): HistorySnapshot {
    return { entries: this.list, length: this.list.length };
  }

  history(): readonly Entry[] {
    return this.list;
  }

  /** The request view: the list itself (a summary anywhere sends the chat down the ordinary path). */
  entries(): readonly Entry[] {
    return this.list;
  }

  /** `selection` (a prefix of the list) as the chain's range and the unsealed entries in full. */
  historyRefs(selection: readonly Entry[] | Picked): HistoryRefs {
    const count = selection.length;
    const sealed = Math.min(count, this.read.sealedCount);
    const parts: HistoryPart[] = sealed > 0 ? [{ from: 0, to: sealed }] : [];
    if (count > sealed) parts.push({ entries: this.list.slice(sealed, count) });
    return { head: this.read.head, parts };
  }

  /** The parent's file is on disk (written by a runtime before this one; flushed again, off the thread). */
  async durable(): Promise<void> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.file, 'r');
    } catch (error) {
      // Deleted meanwhile: its transcript was retired whole (the fork's file already names it), nothing to flush here.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  /**
   * Fills the entries before the known ones, so the list is the chat's history, and returns the prefix home
   * the fork shares from then on. The chat is loaded (streamed in, as an ordinary first fork did before
   * answering): the fork then shares its entries and the request prefix its siblings build, and its first
   * request record extends the chat's. Its entries are taken when the loaded history is the one the tail
   * named (no damage mended, the same entries where the tail was read); otherwise the bootstrap's chain
   * range is read from the segments, each checked against its hash. Throws SegmentError naming what cannot be read.
   */
  async fill(store: SessionStore): Promise<PrefixHome> {
    const { knownFrom, known, head } = this.read;
    // Safe to drop: a chat that no longer loads (deleted meanwhile: retired) leaves the segments to read.
    const parent = await store.get(this.id).catch(() => undefined);
    const view = parent?.history() ?? [];
    const same = parent && parent.damage.length === 0 && view.length >= this.list.length && known.every((entry, i) => view[knownFrom + i]?.id === entry.id);
    if (same) {
      for (let i = 0; i < this.list.length; i++) this.list[i] = view[i];
      return parent.prefixHome;
    }
    if (knownFrom > 0) {
      const [older] = await store.segments.resolve(head, [{ from: 0, to: knownFrom }], this.id);
      for (let i = 0; i < knownFrom; i++) this.list[i] = older[i];
    }
    return this.prefixHome;
  }
}

/**
 * Whether the rules that read the history's end (close.ts: unanswered prompts; createFork.ts: where the
 * parent's latest request ended) stay inside `known`: they then read the same entries in the full list.
 */
function boundaryInside(known: readonly Entry[]): boolean {
  // Positions the rules read, lowest first: known[0] read means the full list would read what is not filled.
  let lowest = known.length;
  const list = { length: known.length, at: (i: number) => ((lowest = Math.min(lowest, i)), known[i]) };
  const end = answeredEnd(list, known);
  if (end === 0 || lowest <= 0) return false;
  if (known[end - 1].message.role === 'user') return true;
  let response = -1;
  for (let i = end - 1; i > 0 && response < 0; i--) if (known[i].kind === 'response') response = i;
  for (let i = response - 1; i > 0; i--) if (known[i].message.role === 'user') return true;
  return false;
}
