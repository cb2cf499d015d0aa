// Parses the chat's `/fork [--turns all|N] <directive>` (no vscode import: unit-tested in plain mocha).
import { parseForkTurns } from '../../common/forkTurns';
import type { ForkTurns } from '../../common/forkTurns';

export type ParsedForkCommand = { ok: true; directive: string; turns?: ForkTurns } | { ok: false; error: string };

const USAGE = 'Usage: /fork [--turns all|N] <directive>, e.g. `/fork --turns 2 write tests for the parser`.';

export function parseForkCommand(prompt: string): ParsedForkCommand {
  let rest = prompt.trim();
  let turns: ForkTurns | undefined;
  const flag = /^--turns(?:=|\s+)(\S*)\s*/.exec(rest);
  if (flag) {
    const parsed = parseForkTurns(flag[1], 'user');
    if (!parsed.ok) return { ok: false, error: `${parsed.error} ${USAGE}` };
    turns = parsed.value;
    rest = rest.slice(flag[0].length);
  } else if (rest.startsWith('--')) {
    return { ok: false, error: `Unknown option ${rest.split(/\s/, 1)[0]}. ${USAGE}` };
  }
  if (rest === '') return { ok: false, error: `Say what the fork should do. ${USAGE}` };
  return { ok: true, directive: rest, turns };
}
