// fork-agents rewind: a chat's files and conversation back to an entry, or the latest rewind undone.
// Files that also changed outside the agent since then are listed and left unless --yes is given.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionRewind } from '../../common/protocol/checkpoints';
import type { RewindParams } from '../../common/protocol/checkpoints';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';

export async function rewindCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session');
  const at = args.flags.get('at');
  const undo = args.switches.has('undo');
  if (sessionId === undefined) throw new UsageError('rewind needs --session ID');
  if ((at === undefined) === !undo) throw new UsageError('rewind needs exactly one of --at ENTRY or --undo');
  const code = args.switches.has('code');
  const conversation = args.switches.has('conversation');
  if (code && conversation) throw new UsageError('give at most one of --code or --conversation (neither: both)');
  if (undo && (code || conversation)) throw new UsageError('--undo takes back the whole latest rewind: no --code or --conversation');
  const params: RewindParams = {
    sessionId, ...(undo ? { undo: true } : { atEntryId: at }), ...(code ? { code: true } : {}), ...(conversation ? { conversation: true } : {}),
    ...(args.switches.has('yes') ? { confirm: true } : {}),
  };
  const client = await connectCli(args);
  try {
    const result = await sendRequest(client.endpoint, sessionRewind, params);
    if (args.switches.has('json')) {
      printJson({ type: undo ? 'rewind-undone' : 'rewound', ...result });
      if (!result.done) process.exitCode = 3;
      return;
    }
    if (!result.done) {
      process.stderr.write(`These files also changed outside the agent since then; rewinding would replace them:\n${result.outside.map(p => `  ${p}\n`).join('')}`);
      throw new Error('nothing was changed: run again with --yes to rewind them too');
    }
    for (const file of result.files) process.stdout.write(`${file.status === 'deleted' ? 'removed' : 'restored'} ${file.path}\n`);
    for (const file of result.leftAlone) process.stdout.write(`left as it is (kept by reference, or behind a link): ${file}\n`);
    process.stdout.write(`${undo ? 'undid the latest rewind' : `rewound to ${at}`}: ${result.files.length} file(s); the conversation now ends at ${result.lastEntryId ?? '(empty)'}\n`);
  } finally {
    await client.close();
  }
}
