// fork-agents list: the sessions (and, later, forks) of the store.
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionList, storeInfo } from '../../common/protocol/runtime';
import { forkList } from '../../common/protocol/forks';
import type { ParsedArgs } from '../args';
import { connectCli, cwdOf } from '../connect';
import { printJson } from '../output';
import { costText } from './fork';
import { isolationText } from '../../common/sandbox';

export async function listCommand(args: ParsedArgs): Promise<void> {
  const root = cwdOf(args, false);
  const client = await connectCli(args);
  try {
    const { sessions } = await sendRequest(client.endpoint, sessionList, { root });
    const { forks } = await sendRequest(client.endpoint, forkList, {});
    const usage = await sendRequest(client.endpoint, storeInfo, {});
    const parents = sessions.filter(s => !s.id.startsWith('f-'));
    const shown = forks.filter(f => parents.some(s => s.id === f.parentSessionId));
    // Forks outlive a deleted parent: listed on their own (not when the listing is for one folder).
    const orphans = root ? [] : forks.filter(f => !sessions.some(s => s.id === f.parentSessionId));
    if (args.switches.has('json')) {
      for (const session of parents) printJson({ type: 'session', ...session });
      for (const fork of [...shown, ...orphans]) printJson({ type: 'fork', ...fork });
      printJson({ type: 'store', ...usage });
      return;
    }
    if (parents.length === 0) process.stdout.write('no sessions\n');
    for (const s of parents) {
      process.stdout.write(`${s.id}  ${s.createdAt.slice(0, 19)}  ${s.running ? 'running ' : ''}${s.title}\n`);
      if (s.mcpServers?.length) {
        const servers = s.mcpServers.map(m => `${m.name} (${m.state}${m.tools !== undefined ? `, ${m.tools} tools` : ''}${m.error ? `: ${m.error}` : ''})`);
        process.stdout.write(`  MCP: ${servers.join(', ')}\n`);
      }
      for (const f of shown.filter(f => f.parentSessionId === s.id)) {
        const where = f.worktree ? `  [${f.worktree.branch}${f.worktree.discarded ? ', discarded' : ''}]` : '';
        const model = f.parentModel ? `  model=${f.model} (cold cache)` : '';
        process.stdout.write(`  └ ${f.id}  ${f.state.padEnd(10)} turns=${f.forkTurns} ${f.name}${where}${model}  ${costText(f)}\n`);
        process.stdout.write(`      ${isolationText(f)}\n`);
      }
    }
    for (const f of orphans) process.stdout.write(`${f.id}  ${f.state.padEnd(10)} turns=${f.forkTurns} ${f.name}  (parent ${f.parentSessionId} deleted)\n`);
    process.stdout.write(`store: ${formatBytes(usage.bytes)} (${usage.sessions} session files ${formatBytes(usage.sessionBytes)}, ${usage.segments} history segments ${formatBytes(usage.segmentBytes)})\n`);
  } finally {
    await client.close();
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
