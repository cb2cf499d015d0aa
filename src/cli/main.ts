// fork-agents: the headless CLI (DESIGN §6), a second client of the runtime.
import { USAGE, UsageError, parseArgs } from './args';
import { chatCommand } from './commands/chat';
import { compactCommand } from './commands/compact';
import { forkCommand, sendCommand } from './commands/fork';
import { listCommand } from './commands/list';
import { transcriptCommand } from './commands/transcript';
import { applyCommand, discardCommand, keepCommand, reviewCommand } from './commands/worktree';

const INVALID_PARAMS = -32602;
const FLAGS = new Set(['cwd', 'session', 'store', 'model', 'approval', 'turns', 'at', 'isolation', 'fork', 'on-conflict', 'worktree-root', 'budget']);
const COMMANDS: Record<string, (args: ReturnType<typeof parseArgs>) => Promise<void>> = {
  chat: chatCommand,
  compact: compactCommand,
  fork: forkCommand,
  send: sendCommand,
  list: listCommand,
  transcript: transcriptCommand,
  review: reviewCommand,
  apply: applyCommand,
  keep: keepCommand,
  discard: discardCommand,
};

async function main(argv: string[]): Promise<number> {
  try {
    const args = parseArgs(argv, FLAGS);
    if (args.verb === 'help' || args.switches.has('help')) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    const command = COMMANDS[args.verb];
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(args.verb)}`);
    await command(args);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`fork-agents: ${message.split('\n', 1)[0]}\n`);
    return isBadInput(error) ? 2 : 1;
  }
}

main(process.argv.slice(2)).then(code => process.exit(code));

/** Usage mistakes and requests the runtime refused as invalid (unknown session, bad root, …). */
function isBadInput(error: unknown): boolean {
  return error instanceof UsageError || (error as { code?: unknown })?.code === INVALID_PARAMS;
}
