// A fork killed mid-run and revived, for the revival tests: its first request reads notes.md (the test's
// folder holds it), its second hangs until the runtime is killed there, and its revived run reports.
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { isForkRequest } from './gitRepo';
import { killRuntime } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

export const REVIVED_REPORT = 'Scope: revived.\nResult: pelican.';

export interface KilledMidFork {
  /** The fork's answer to each of its requests, in order: the responder calls it for fork requests only. */
  turn(): ScriptedTurn;
  /** Waits for the fork's hanging request, kills the runtime there and reconnects, so the fork revives. */
  killWhenHung(): Promise<void>;
}

/** Call before the fork starts: it listens for the hanging request from then on. */
export function killedMidFork(h: Harness): KilledMidFork {
  let forkRequests = 0;
  let stopListening = (): void => undefined;
  const hung = new Promise<void>(resolve => {
    stopListening = h.fake.onRequest(r => {
      if (isForkRequest(r) && forkRequests >= 1 && r.body.messages.length > 3) resolve();
    });
  });
  return {
    turn: () => {
      forkRequests++;
      if (forkRequests === 1) return call(['read_file', { path: 'notes.md' }]);
      if (forkRequests === 2) return { fault: 'hang' } as never;
      return say(REVIVED_REPORT);
    },
    killWhenHung: async () => {
      await hung;
      stopListening();
      await killRuntime(h.runtimePid());
      await h.reconnect();
    },
  };
}
