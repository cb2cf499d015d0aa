// The one fork_turns parser (docs/design.md §4.1), used by the Agent tool, the protocol, the panel's picker,
// the command palette and the CLI.

export type ForkTurns = 'all' | number;

export type ForkTurnsResult = { ok: true; value: ForkTurns } | { ok: false; error: string };

export const FORK_TURNS_FORMS = '"all" or a positive whole number as a string such as "3"';
const POSITIVE = /^[1-9][0-9]*$/;

/** Omitted (undefined) means "all". Anything but "all" or a canonical positive integer string is refused. */
export function parseForkTurns(raw: unknown): ForkTurnsResult {
  if (raw === undefined || raw === 'all') return { ok: true, value: 'all' };
  if (typeof raw === 'string' && POSITIVE.test(raw)) {
    const value = Number(raw);
    if (Number.isSafeInteger(value)) return { ok: true, value };
    return { ok: false, error: `fork_turns ${JSON.stringify(raw)} is too large; use ${FORK_TURNS_FORMS}.` };
  }
  return { ok: false, error: `Invalid fork_turns ${describe(raw)}: use ${FORK_TURNS_FORMS}.` };
}

export function forkTurnsToString(turns: ForkTurns): string {
  return turns === 'all' ? 'all' : String(turns);
}

function describe(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return '(an array)';
  if (typeof raw === 'object') return '(an object)';
  return `${String(raw)} (a ${typeof raw}, not a string)`;
}
