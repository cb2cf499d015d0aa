// A fork is started once its bytes are written (a crash of the runtime keeps it: startJournal.ts), and
// durable against a power loss once the start journal's flush is done and its own file written, after
// fork/start has answered (docs/design.md §4.7). Until then nothing is spent on it or told to a model about
// it: its first request waits for that, and so does any notice naming it in a parent's request. A failed
// flush fails it.
import type { ForkRun } from './trackedFork';

/**
 * Marks the run unflushed until `flushed` settles; then `onFailure` (before anyone awaiting the result)
 * if it failed. The result rejects with the flush's error; it is handled here, so nobody need await it.
 */
export function holdUntilFlushed(run: ForkRun, flushed: Promise<unknown>, onFailure: (error: unknown) => void): Promise<void> {
  run.unflushed = true;
  run.startFlush = flushed.then(
    () => {
      run.unflushed = undefined;
    },
    (error: unknown) => {
      onFailure(error);
      throw error;
    },
  );
  run.startFlush.catch(() => undefined);
  return run.startFlush;
}

/** True once the run's start is durable (at once for a run that was not just started); false if its flush failed. */
export function startFlushed(run: ForkRun): Promise<boolean> {
  return run.startFlush?.then(() => true, () => false) ?? Promise.resolve(true);
}
