// fork-agents list: the sessions (and, later, forks) of the store.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionList } from '../../common/protocol/runtime';
import type { ParsedArgs } from '../args';
import { connectCli, cwdOf } from '../connect';
import { printJson } from '../output';

export async function listCommand(args: ParsedArgs): Promise<void> {
  const root = cwdOf(args, false);
  const client = await connectCli(args);
  try {
    const { sessions } = await sendRequest(client.endpoint, sessionList, { root });
    if (args.switches.has('json')) {
      for (const session of sessions) printJson(session);
      return;
    }
    if (sessions.length === 0) process.stdout.write('no sessions\n');
    for (const s of sessions) {
      process.stdout.write(`${s.id}  ${s.createdAt.slice(0, 19)}  ${s.running ? 'running ' : ''}${s.title}\n`);
    }
  } finally {
    await client.close();
  }
}
