// fork-agents: the headless CLI (docs/design.md §9), a second client of the runtime.
import { UsageError, parseCommandLine } from './args';
import type { ParsedArgs } from './args';
import { chatCommand } from './commands/chat';
import { compactCommand } from './commands/compact';
import { deleteCommand } from './commands/delete';
import { rewindCommand } from './commands/rewind';
import { forkCommand, sendCommand } from './commands/fork';
import { listCommand } from './commands/list';
import { transcriptCommand } from './commands/transcript';
import { applyCommand, discardCommand, keepCommand, reviewCommand } from './commands/worktree';
import { stopCommand } from './commands/stop';
import { compareCommand } from './commands/tournament';
import { doctorCommand } from './commands/doctor';
import { RuntimeErrorCode } from '../common/protocol/runtime';

declare const FORK_AGENTS_VERSION: string;

const INVALID_PARAMS = -32602;
/** A runner's number is the exit code (doctor's own codes); otherwise success is 0. */
const RUNNERS: Record<string, (args: ParsedArgs) => Promise<void | number>> = {
  chat: chatCommand,
  compact: compactCommand,
  fork: forkCommand,
  send: sendCommand,
  stop: stopCommand,
  list: listCommand,
  delete: deleteCommand,
  rewind: rewindCommand,
  transcript: transcriptCommand,
  review: reviewCommand,
  apply: applyCommand,
  compare: compareCommand,
  keep: keepCommand,
  discard: discardCommand,
  doctor: doctorCommand,
};

async function main(argv: string[]): Promise<number> {
  try {
    const line = parseCommandLine(argv);
    if (line.kind === 'help') {
      process.stdout.write(line.text + '\n');
      return 0;
    }
    if (line.kind === 'version') {
      process.stdout.write(`fork-agents ${typeof FORK_AGENTS_VERSION === 'string' ? FORK_AGENTS_VERSION : 'dev'}\n`);
      return 0;
    }
    const run = RUNNERS[line.args.verb];
    if (!run) throw new UsageError(`unknown command ${JSON.stringify(line.args.verb)}`);
    const code = await run(line.args);
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    // The runtime's words name the editor's command too; here the user is at a terminal.
    const message = (error as { code?: unknown })?.code === RuntimeErrorCode.missingKey
      ? 'No Anthropic API key is set: set ANTHROPIC_API_KEY (or FORK_AGENTS_PROVIDER=bedrock|vertex), or pass --demo for the local demo model, which needs none.'
      : error instanceof Error ? error.message : String(error);
    process.stderr.write(`fork-agents: ${message.split('\n', 1)[0]}\n`);
    return isBadInput(error) ? 2 : 1;
  }
}

// `fork-agents list --json | head -1` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(code => process.exit(code));

/** Usage mistakes and requests the runtime refused as invalid (unknown session, bad root, …). */
function isBadInput(error: unknown): boolean {
  return error instanceof UsageError || (error as { code?: unknown })?.code === INVALID_PARAMS;
}
