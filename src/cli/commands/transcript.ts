// fork-agents transcript: a session's entries, readable or as JSON lines.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionTranscript } from '../../common/protocol/runtime';
import type { Entry } from '../../common/transcript';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';

export async function transcriptCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session') ?? args.flags.get('fork');
  if (!sessionId) throw new UsageError('transcript needs --session ID or --fork ID');
  const client = await connectCli(args);
  try {
    const { header, entries } = await sendRequest(client.endpoint, sessionTranscript, { sessionId });
    if (args.switches.has('json')) {
      printJson({ type: 'header', header });
      for (const entry of entries) printJson({ type: 'entry', entry });
      return;
    }
    process.stdout.write(`# ${header.title} (${header.id})\nroot: ${header.root}\n\n`);
    for (const entry of entries) process.stdout.write(formatEntry(entry) + '\n');
  } finally {
    await client.close();
  }
}

function formatEntry(entry: Entry): string {
  const parts = entry.message.content.map(block => {
    switch (block.type) {
      case 'text': return block.text;
      case 'tool_use': return `→ ${block.name} ${JSON.stringify(block.input)}`;
      case 'tool_result': return `← ${typeof block.content === 'string' ? block.content.split('\n', 1)[0] : '(blocks)'}${block.is_error ? ' (error)' : ''}`;
      case 'thinking': return '(thinking)';
      default: return `(${block.type})`;
    }
  });
  return `[${entry.kind}] ${parts.join('\n  ')}`;
}
