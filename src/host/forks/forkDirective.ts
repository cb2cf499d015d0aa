// Parses the chat's `/fork [--turns all|N] [--attempts N] <directive>` (no vscode import: unit-tested in plain mocha).
import { parseForkTurns } from '../../common/forkTurns';
import type { ForkTurns } from '../../common/forkTurns';
import { MAX_ATTEMPTS } from '../../common/tournament';

export type ParsedForkCommand = { ok: true; directive: string; turns?: ForkTurns; attempts?: number } | { ok: false; error: string };

const USAGE = 'Usage: /fork [--turns all|N] [--attempts N] <directive>, e.g. `/fork --turns 2 write tests for the parser`, '
  + `or \`/fork --attempts 3 fix the date bug\` for 2–${MAX_ATTEMPTS} attempts compared side by side.`;

export function parseForkCommand(prompt: string): ParsedForkCommand {
  let rest = prompt.trim();
  let turns: ForkTurns | undefined;
  let attempts: number | undefined;
  for (;;) {
    const flag = /^--(turns|attempts)(?:=|\s+)(\S*)\s*/.exec(rest);
    if (!flag) break;
    if (flag[1] === 'turns') {
      const parsed = parseForkTurns(flag[2], 'user');
      if (!parsed.ok) return { ok: false, error: `${parsed.error} ${USAGE}` };
      turns = parsed.value;
    } else {
      const n = /^\d+$/.test(flag[2]) ? Number(flag[2]) : NaN;
      if (!(n >= 1 && n <= MAX_ATTEMPTS)) return { ok: false, error: `--attempts takes a whole number from 1 to ${MAX_ATTEMPTS} (got "${flag[2]}"). ${USAGE}` };
      attempts = n;
    }
    rest = rest.slice(flag[0].length);
  }
  if (rest.startsWith('--')) return { ok: false, error: `Unknown option ${rest.split(/\s/, 1)[0]}. ${USAGE}` };
  if (rest === '') return { ok: false, error: `Say what the fork should do. ${USAGE}` };
  return { ok: true, directive: rest, turns, ...(attempts !== undefined && attempts > 1 ? { attempts } : {}) };
}
