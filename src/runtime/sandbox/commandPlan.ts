// How a command of the bash tool or of worktree setup is spawned: inside the fork's sandbox when it has
// one, else plain `bash -lc` with the runtime's environment (the behaviour without a sandbox).
import type { CommandPlan, CommandSandbox } from '../tools/types';

export function planCommand(
  sandbox: CommandSandbox | undefined, command: string, cwd: string, own: Record<string, string>, env: NodeJS.ProcessEnv = process.env,
): CommandPlan | { refused: string } {
  if (sandbox) return sandbox.plan(command, cwd, own);
  return { file: 'bash', args: [shellFlags(env), command], env: { ...env, ...own } as Record<string, string>, stdio: [], started: () => undefined };
}

/**
 * `-lc`: a login shell, so the user's profile sets PATH and the like as in their terminal. The test runtimes set
 * FORK_AGENTS_BASH_LOGIN=0 (`-c`): they inherit PATH already, and a profile that starts tool managers (pyenv,
 * nvm) costs a tenth of a second of CPU or more per command, paid by every bash call of the runtime tests.
 */
export function shellFlags(env: NodeJS.ProcessEnv = process.env): '-lc' | '-c' {
  return env.FORK_AGENTS_BASH_LOGIN === '0' ? '-c' : '-lc';
}
