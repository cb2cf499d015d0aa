// The Agent tool's behaviour per session: a parent starts forks and subagents; a child refuses
// (DESIGN §4.5: the tool stays declared for cache parity, but a fork does not fork).
import type { Session } from '../session/session';
import type { AgentToolInput, SubagentHost, ToolOutput } from '../tools/types';
import { NESTED_FORK_ERROR } from './directive';
import type { ForkManager, ModelAccess } from './forkManager';

export const refusingSubagentHost: SubagentHost = {
  async run(input: AgentToolInput): Promise<ToolOutput> {
    if (input.subagent_type === 'fork') return { content: NESTED_FORK_ERROR, isError: true };
    return { content: 'Cannot start a subagent from a forked worker or subagent; do the work directly.', isError: true };
  },
};

export function parentSubagentHost(manager: ForkManager, parent: Session, access: ModelAccess): SubagentHost {
  return {
    async run(input, callId, signal) {
      if (input.isolation === 'worktree') {
        return { content: 'Agent: worktree isolation is not available yet; use isolation "shared".', isError: true };
      }
      const fork = manager.start({
        parent,
        kind: input.subagent_type,
        directive: input.prompt,
        turns: input.fork_turns ?? 'all',
        isolation: 'shared',
        origin: 'agent',
        name: input.description,
        callId,
      }, access);
      if (input.run_in_background) {
        const what = input.subagent_type === 'fork' ? 'Fork' : 'Subagent';
        return { content: `${what} "${fork.name}" started in the background (id ${fork.id}). Its report will arrive as a <fork-notification>; continue with other work.` };
      }
      const onAbort = () => manager.cancel(fork.id);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const done = await manager.wait(fork.id);
        manager.takeNotificationOf(fork.id);
        if (done.state === 'completed') return { content: done.report || '(the subagent gave no report)' };
        return { content: `Subagent ${done.state}: ${done.error ?? 'no report'}`, isError: true };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
