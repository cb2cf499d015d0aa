// fork-agents compact: summarise a session now; exit 1 with the reason if it fails.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionCompact } from '../../common/protocol/runtime';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';

export async function compactCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session');
  if (!sessionId) throw new UsageError('compact needs --session ID');
  const client = await connectCli(args);
  try {
    const result = await sendRequest(client.endpoint, sessionCompact, { sessionId, focus: args.positional.join(' ') || undefined });
    if (args.switches.has('json')) printJson({ type: 'result', sessionId, ...result });
    else process.stdout.write(`compacted ${sessionId}: summary ${result.summaryEntryId} replaces ${result.tokensBefore} tokens of history\n`);
  } finally {
    await client.close();
  }
}
