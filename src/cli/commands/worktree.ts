// fork-agents review / apply / keep / discard: what to do with a worktree fork's changes (docs/design.md §4.8).
import type { ApplyConflictMode } from '../../common/protocol/forks';
import { sendRequest } from '../../common/protocol/endpoint';
import { forkApply, forkDiscard, forkKeep, forkReview } from '../../common/protocol/forks';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { CliFailure, printJson } from '../output';
import type { RuntimeClient } from '../../client/rpcClient';
import { applyGroupCommand } from './tournament';

function forkIdOf(args: ParsedArgs, verb: string): string {
  const forkId = args.flags.get('fork');
  if (!forkId) throw new UsageError(`${verb} needs --fork ID`);
  if (args.positional.length > 0) throw new UsageError(`${verb} takes no text, only --fork ID`);
  return forkId;
}

async function withClient(args: ParsedArgs, action: (client: RuntimeClient) => Promise<void>): Promise<void> {
  const client = await connectCli(args);
  try {
    await action(client);
  } finally {
    await client.close();
  }
}

/** Prints the changed files (status and path) then the patch; --json prints the whole review as one line. */
export async function reviewCommand(args: ParsedArgs): Promise<void> {
  const forkId = forkIdOf(args, 'review');
  await withClient(args, async client => {
    const review = await sendRequest(client.endpoint, forkReview, { forkId });
    if (args.switches.has('json')) return printJson({ type: 'result', forkId, ...review });
    const mark = { added: 'A', modified: 'M', deleted: 'D', 'type-changed': 'T' } as const;
    process.stderr.write(`fork ${forkId}: branch ${review.branch}, worktree ${review.worktree}, base ${review.base.slice(0, 12)}\n`);
    if (review.files.length === 0) process.stderr.write('no changes\n');
    for (const file of review.files) process.stderr.write(`${mark[file.status]} ${file.path}\n`);
    process.stdout.write(review.patch);
  });
}

/** Exit code 1 when files conflict (nothing written with the default --on-conflict refuse). */
export async function applyCommand(args: ParsedArgs): Promise<void> {
  if (args.flags.has('group')) return applyGroupCommand(args);
  const forkId = forkIdOf(args, 'apply');
  const onConflict = (args.flags.get('on-conflict') ?? 'refuse') as ApplyConflictMode;
  if (onConflict !== 'refuse' && onConflict !== 'markers') throw new UsageError('--on-conflict must be refuse or markers');
  await withClient(args, async client => {
    const result = await sendRequest(client.endpoint, forkApply, { forkId, onConflict });
    if (args.switches.has('json')) printJson({ type: 'result', forkId, ...result });
    else {
      for (const file of result.applied) process.stdout.write(`applied ${file}\n`);
      for (const conflict of result.conflictDetails) process.stdout.write(`conflict ${conflict.path}: ${conflict.reason}\n`);
      process.stderr.write(result.message + '\n');
    }
    if (result.conflicts.length > 0) throw new CliFailure(`${result.conflicts.length} conflicting file(s)`);
  });
}

export async function keepCommand(args: ParsedArgs): Promise<void> {
  const forkId = forkIdOf(args, 'keep');
  await withClient(args, async client => {
    const kept = await sendRequest(client.endpoint, forkKeep, { forkId });
    if (args.switches.has('json')) printJson({ type: 'result', forkId, ...kept });
    else process.stdout.write(`${kept.branch} ${kept.commit}\n`);
  });
}

export async function discardCommand(args: ParsedArgs): Promise<void> {
  const forkId = forkIdOf(args, 'discard');
  await withClient(args, async client => {
    const { endedProcesses } = await sendRequest(client.endpoint, forkDiscard, { forkId });
    const ended = endedProcesses ? `; ended ${endedProcesses} process${endedProcesses === 1 ? '' : 'es'} it left running` : '';
    if (args.switches.has('json')) printJson({ type: 'result', forkId, discarded: true, endedProcesses: endedProcesses ?? 0 });
    else process.stderr.write(`fork ${forkId}: worktree, branch and folder removed${ended}\n`);
  });
}
