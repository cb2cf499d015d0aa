// The sandbox of one fork run, from the run's policy: a problem setting it up (a proxy socket that cannot
// listen, a git folder that cannot be made) never runs the fork's commands unsandboxed when the policy
// wants a sandbox; they are refused with the reason instead.
import type { ModelAccess } from '../fork/forkContracts';
import type { ForkRun } from '../fork/trackedFork';
import { log } from '../log';
import { launchPolicy } from '../policy';
import type { Session } from '../session/session';
import { createForkSandbox } from './forkSandbox';
import type { ForkSandbox } from './forkSandbox';

/** The tools whose work runs inside the sandbox (under auto-edit they need no approval there). */
export const SANDBOXED_TOOLS: ReadonlySet<string> = new Set(['bash']);

export async function sandboxForRun(run: ForkRun, session: Session, access: ModelAccess, storeDir: string): Promise<ForkSandbox> {
  const settings = launchPolicy(access).sandbox ?? { mode: 'auto' };
  try {
    return await createForkSandbox({
      settings, root: session.header.root, worktree: run.summary.worktree, storeDir, id: run.id,
      onNetwork: d => log(`fork ${run.id}: sandbox network ${d.allowed ? 'allowed' : 'refused'} ${d.host}:${d.port}${d.reason ? ` (${d.reason})` : ''}`),
    });
  } catch (error) {
    const reason = `the sandbox could not be set up: ${error instanceof Error ? error.message : String(error)}`;
    log(`fork ${run.id}: ${reason}`);
    const refused = `Not run: ${reason}.`;
    return {
      state: { on: false, allowNetwork: [], note: reason },
      commands: { plan: () => ({ refused }), explain: () => undefined }, // only reached when a sandbox was wanted: off never throws
      close: async () => undefined,
    };
  }
}
