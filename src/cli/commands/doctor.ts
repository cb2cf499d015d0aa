// fork-agents doctor: checks a store and, with --repair, mends what it can. The work is the runtime's own
// loading and recovery code, run as `runtime.js --doctor` (the CLI imports no runtime code); its output and
// exit code are the command's.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { ParsedArgs } from '../args';
import { storeDirOf } from '../connect';

export async function doctorCommand(args: ParsedArgs): Promise<number> {
  const runtimeScript = process.env.FORK_AGENTS_RUNTIME_SCRIPT ?? path.join(__dirname, 'runtime.js');
  const argv = [runtimeScript, '--doctor', '--store', storeDirOf(args)];
  if (args.switches.has('repair')) argv.push('--repair');
  if (args.switches.has('json')) argv.push('--json');
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
  // It talks to no model: the key stays out of its environment.
  delete env.ANTHROPIC_API_KEY;
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
