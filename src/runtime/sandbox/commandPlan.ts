// How a command of the bash tool or of worktree setup is spawned: inside the fork's sandbox when it has
// one, else plain `bash -lc` with the runtime's environment (the behaviour without a sandbox).
import type { CommandPlan, CommandSandbox } from '../tools/types';

export function planCommand(sandbox: CommandSandbox | undefined, command: string, cwd: string, own: Record<string, string>): CommandPlan | { refused: string } {
  if (sandbox) return sandbox.plan(command, cwd, own);
  return { file: 'bash', args: ['-lc', command], env: { ...process.env, ...own } as Record<string, string>, stdio: [], started: () => undefined };
}
