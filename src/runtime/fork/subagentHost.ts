// The Agent tool's behaviour per session: a parent starts forks and subagents; a child refuses
// (docs/design.md §4.4: the tool stays declared for cache parity, but a fork does not fork).
import type { Session } from '../session/session';
import type { AgentToolInput, SubagentHost, ToolOutput } from '../tools/types';
import { NESTED_FORK_ERROR, isForkTranscript } from './history/directive';
import { BudgetError } from './forkContracts';
import type { ForkLauncher, ModelAccess, TournamentLauncher } from './forkContracts';
import { GitError } from '../git/run';
import { WorktreeError } from '../git/worktree';

export const refusingSubagentHost: SubagentHost = {
  async run(input: AgentToolInput): Promise<ToolOutput> {
    if (input.subagent_type === 'fork') return { content: NESTED_FORK_ERROR, isError: true };
    return { content: 'Cannot start a subagent from a forked worker or subagent; do the work directly.', isError: true };
  },
};

/** One per parent turn: it counts the Agent calls of that turn against fork.maxForksPerTurn. */
export function parentSubagentHost(manager: ForkLauncher, parent: Session, access: ModelAccess, tournaments?: TournamentLauncher): SubagentHost {
  let started = 0;
  return {
    async run(input, callId, signal) {
      // The guard holds on the transcript itself (seed 003's isInForkChild): a history that carries the
      // fork boilerplate is a fork's, however its turn was started.
      if (parent.bootstrap || isForkTranscript(parent.history())) return refusingSubagentHost.run(input, callId, signal);
      const limit = access.maxForksPerTurn;
      if (limit !== undefined && started >= limit) {
        return {
          content: `Agent: not started. This turn already started ${started} fork(s) or subagent(s), the limit of fork.maxForksPerTurn (${limit}). Do this work yourself, or wait for their reports and start more in a later turn.`,
          isError: true,
        };
      }
      started++;
      if (input.attempts && input.attempts > 1 && tournaments) return startTournament(tournaments, parent, access, input, callId);
      let fork;
      try {
        fork = await manager.start({
          parent,
          kind: input.subagent_type,
          directive: input.prompt,
          turns: input.fork_turns ?? 'all',
          // Absent: forks get a worktree in a git repository, regular subagents share the folder.
          isolation: input.isolation,
          origin: 'agent',
          name: input.description,
          callId,
        }, access);
      } catch (error) {
        if (error instanceof WorktreeError) return { content: `Agent: ${error.message}`, isError: true };
        if (error instanceof GitError) return { content: `Agent: could not create the fork's git worktree: ${error.message}`, isError: true };
        if (error instanceof BudgetError) return { content: `Agent: ${error.message}`, isError: true };
        throw error;
      }
      if (input.run_in_background) {
        const what = input.subagent_type === 'fork' ? 'Fork' : 'Subagent';
        const where = fork.worktree
          ? ` It works in its own git worktree ${fork.worktree.path} (branch ${fork.worktree.branch}); its changes reach this folder only when the user applies them.`
          : '';
        return { content: `${what} "${fork.name}" started in the background (id ${fork.id}).${where} Its report will arrive as a <fork-notification>; continue with other work.` };
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

/** An Agent call with attempts > 1: a tournament; the reports arrive like any background fork's. */
async function startTournament(tournaments: TournamentLauncher, parent: Session, access: ModelAccess, input: AgentToolInput, callId: string): Promise<ToolOutput> {
  try {
    const { group, attempts } = await tournaments.start({
      spec: { parent, kind: 'fork', directive: input.prompt, turns: input.fork_turns ?? 'all', origin: 'agent', name: input.description, callId },
      attempts: input.attempts!, verify: tournaments.defaultVerify(access, parent.header.root),
    }, access);
    const verify = group.verify ? ` Each runs \`${group.verify}\` in its worktree when it ends;` : ' There is no verify command;';
    return {
      content: `Tournament "${input.description}" started: ${attempts.length} attempts in their own git worktrees (group ${group.id}; forks ${attempts.map(a => a.id).join(', ')}).`
        + `${verify} the user compares them and applies the best. Each attempt's report arrives as a <fork-notification>; continue with other work.`,
    };
  } catch (error) {
    if (error instanceof WorktreeError || error instanceof BudgetError) return { content: `Agent: ${error.message}`, isError: true };
    if (error instanceof GitError) return { content: `Agent: could not create the attempts' git worktrees: ${error.message}`, isError: true };
    throw error;
  }
}
