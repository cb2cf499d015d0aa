// The one fork_turns parser (docs/design.md §4.1), used by the Agent tool, the protocol, the panel's picker,
// the command palette and the CLI.

export type ForkTurns = 'all' | number;

export type ForkTurnsResult = { ok: true; value: ForkTurns } | { ok: false; error: string };

export const FORK_TURNS_FORMS = '"all" or a positive whole number as a string such as "3"';
/** The same rule in words for people: they type text, so "as a string" and the tool's field name mean nothing to them. */
const USER_FORMS = '"all" or a positive whole number such as 3';
const POSITIVE = /^[1-9][0-9]*$/;
/**
 * The most turns a window can name. A number the chat has fewer turns than takes all it has (§4.2), so any
 * bound is as good as none for a real chat; this one only turns a typo like 1000000000 into an error.
 */
export const MAX_FORK_TURNS = 10000;

/**
 * Omitted (undefined) means "all". Anything but "all" or a canonical positive integer string is refused.
 * `audience` words the error: the model reads of its `fork_turns` field, a user of a turn count.
 */
export function parseForkTurns(raw: unknown, audience: 'model' | 'user' = 'model'): ForkTurnsResult {
  const [subject, forms] = audience === 'model' ? ['fork_turns', FORK_TURNS_FORMS] : ['turn count', USER_FORMS];
  if (raw === undefined || raw === 'all') return { ok: true, value: 'all' };
  if (typeof raw === 'string' && POSITIVE.test(raw)) {
    const value = Number(raw);
    if (value <= MAX_FORK_TURNS) return { ok: true, value };
    const range = `"all" or a whole number from 1 to ${MAX_FORK_TURNS}${audience === 'model' ? ' as a string' : ''}`;
    return { ok: false, error: `The ${subject} ${JSON.stringify(raw)} is too large; use ${range}.` };
  }
  return { ok: false, error: `Invalid ${subject} ${describe(raw)}: use ${forms}.` };
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
