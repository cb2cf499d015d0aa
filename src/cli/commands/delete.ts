// fork-agents delete: deletes a chat session or a fork; prints what the store takes afterwards.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionDelete } from '../../common/protocol/runtime';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';
import { formatBytes } from './list';

export async function deleteCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session');
  const forkId = args.flags.get('fork');
  if ((sessionId === undefined) === (forkId === undefined)) throw new UsageError('delete needs exactly one of --session ID or --fork ID');
  const client = await connectCli(args);
  try {
    const force = args.switches.has('force') ? { force: true } : {};
    const result = await sendRequest(client.endpoint, sessionDelete, sessionId !== undefined ? { sessionId, ...force } : { forkId, ...force });
    if (args.switches.has('json')) {
      printJson({ type: 'deleted', ...result });
      return;
    }
    for (const w of result.worktreesRemoved ?? []) {
      const discarded = w.discardedFiles > 0 ? `; ${w.discardedFiles} changed file(s) discarded` : '';
      process.stdout.write(`removed worktree ${w.path} of ${w.forkId}${w.keptBranch ? ` (kept branch ${w.keptBranch} stays)` : ' and its branch'}${discarded}\n`);
    }
    process.stdout.write(`deleted ${result.deleted}; ${result.segmentsRemoved} history segment(s) no longer referenced were removed (${formatBytes(result.freedBytes)}); store: ${formatBytes(result.store.bytes)}\n`);
  } finally {
    await client.close();
  }
}
