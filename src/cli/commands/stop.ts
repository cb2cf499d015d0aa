// fork-agents stop --fork ID | --group ID: stops a fork, or every attempt of a tournament (queued,
// running, waiting for approval or paused) and its judge; then waits until they have ended and prints
// their states, so the command's return means they are stopped.
import { sendRequest } from '../../common/protocol/endpoint';
import { forkCancel, forkWait, tournamentCancel, tournamentWait } from '../../common/protocol/forks';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';

export async function stopCommand(args: ParsedArgs): Promise<void> {
  const forkId = args.flags.get('fork');
  const groupId = args.flags.get('group');
  if ((forkId === undefined) === (groupId === undefined)) throw new UsageError('stop needs exactly one of --fork ID or --group ID');
  const json = args.switches.has('json');
  const client = await connectCli(args);
  try {
    if (forkId !== undefined) {
      const { cancelled } = await sendRequest(client.endpoint, forkCancel, { forkId });
      const fork = await sendRequest(client.endpoint, forkWait, { forkId });
      if (json) printJson({ type: 'result', forkId, stopped: cancelled, state: fork.state });
      else process.stdout.write(`${forkId} ${fork.state}${cancelled ? '' : ' (it had already ended)'}\n`);
      return;
    }
    const { cancelled } = await sendRequest(client.endpoint, tournamentCancel, { groupId: groupId! });
    const result = await sendRequest(client.endpoint, tournamentWait, { groupId: groupId! });
    if (json) {
      for (const a of result.attempts) printJson({ type: 'attempt', forkId: a.forkId, attempt: a.attempt, state: a.state, stopped: cancelled.includes(a.forkId) });
      printJson({ type: 'result', groupId, forkIds: result.group.forkIds, stopped: cancelled, winner: result.group.verdict?.winner ?? null, reason: result.group.verdict?.reason ?? null });
    } else {
      for (const a of result.attempts) process.stdout.write(`#${a.attempt} ${a.forkId} ${a.state}${cancelled.includes(a.forkId) ? '' : ' (it had already ended)'}\n`);
      process.stderr.write(`stopped ${cancelled.length} of ${result.attempts.length} attempts of ${groupId}\n`);
    }
  } finally {
    await client.close();
  }
}
