// A session's rewinds that can still be undone, and the entries rewinds cut off. A frame keeps the
// history exactly as it was (its array is never written again: a rewind assigns a new one), so undoing
// costs no copy; a commit makes every rewind before it final.
import type { Entry } from '../../common/transcript';
import type { RewoundCode } from './records';

export interface RewindFrame<State> { state: State; code?: RewoundCode }

export class RewindStack<State> {
  private frames: RewindFrame<State>[] = [];
  /** Ids a rewind cut off: a chat view that cannot drop them still names them as its last entry. */
  private readonly cut = new Set<string>();

  pushed(frame: RewindFrame<State>, cutOff: readonly Entry[]): void {
    this.frames.push(frame);
    for (const entry of cutOff) this.cut.add(entry.id);
  }

  committed(): void {
    if (this.frames.length > 0) this.frames = [];
  }

  latest(): RewindFrame<State> | undefined {
    return this.frames[this.frames.length - 1];
  }

  pop(): RewindFrame<State> | undefined {
    return this.frames.pop();
  }

  wasCut(entryId: string): boolean {
    return this.cut.has(entryId);
  }
}
