// One step proportional to a history (building a request's body, fingerprinting a sent one) per turn of
// the event loop. A bare setImmediate gave each such step a fresh turn, but steps that became ready
// together (seven siblings released at once by the stagger) all ran in the same check phase, one after
// another: a socket read that arrived meanwhile — a ping, another client's call — waited for all of them
// (docs/benchmarks.md, "Fifty siblings"). Here the next waiter's turn is taken only once the previous
// waiter has had its own, so the loop polls for I/O between any two such steps, and what waits on I/O
// waits behind one step at most.
import { setImmediate as nextTurn } from 'node:timers/promises';

let last: Promise<void> = Promise.resolve();

/** Resolves on a turn of its own, after every earlier caller's turn. */
export function heavyTurn(): Promise<void> {
  const mine = last.then(() => nextTurn()).then(() => undefined);
  last = mine;
  return mine;
}
