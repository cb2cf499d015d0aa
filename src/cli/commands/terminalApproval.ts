// The CLI's approval prompt: y/N on the terminal, for a chat's calls and for those of a fork waited on with --wait.
import * as readline from 'node:readline';
import { modeThatAllows } from '../../common/approval';
import { approvalInputLines, escapeControl } from '../../common/escapeControl';
import type { PermissionParams, PermissionResult } from '../../common/protocol/runtime';

/** Someone can be asked: the input and the prompt's output are both a terminal. */
export function terminalCanAsk(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Asks y/N on the terminal; without one there is nobody to ask, so the call is denied with a reason. `who`
 * leads the question when several forks may ask (a tournament's attempts).
 */
export async function askOnTerminal(params: PermissionParams, who?: string): Promise<PermissionResult> {
  if (!terminalCanAsk()) {
    return { approved: false, reason: `no terminal to ask on; run with ${modeThatAllows(params.category)} to allow it`, unanswered: true };
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    // The whole input, control characters escaped: a `\r` or an ANSI erase must not redraw the question.
    const details = approvalInputLines(params.input, 2000).map(line => `  ${line}\n`).join('');
    const kind = params.category === 'exec' ? 'runs a command' : params.category === 'edit' ? 'changes files' : 'reads files';
    const question = `${who ? `${who}: ` : ''}Allow ${escapeControl(params.toolName)} (${kind}): ${escapeControl(params.description)}\n${details}[y/N] `;
    const answer = await new Promise<string>(resolve => rl.question(question, resolve));
    return /^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false, reason: 'denied at the terminal' };
  } finally {
    rl.close();
  }
}

/**
 * One question on the terminal at a time: several forks (a tournament's attempts) may ask at once, and two
 * readline prompts on one terminal would interleave their questions and split one answer between them.
 */
export function oneAtATime<T, R>(ask: (params: T) => Promise<R>): (params: T) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve();
  return params => {
    const next = last.then(() => ask(params));
    // The chain only orders the prompts: a failed question reaches its caller through `next`.
    last = next.catch(() => undefined);
    return next;
  };
}
