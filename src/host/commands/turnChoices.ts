// The palette's turn-count step: All, 1, 2, 3, …, Custom…, each custom value checked by the
// one fork_turns parser. Pure.
import { parseForkTurns } from '../../common/forkTurns';

export interface TurnChoice { label: string; description: string; /** Absent: ask for a custom number. */ value?: string }

const MAX_LISTED = 9;

export function turnChoices(realTurns: number): TurnChoice[] {
  const listed = Math.min(MAX_LISTED, Math.max(3, realTurns));
  const choices: TurnChoice[] = [{ label: 'All', description: 'the whole conversation, startup context and summary included', value: 'all' }];
  for (let n = 1; n <= listed; n++) {
    const more = n > realTurns && realTurns > 0 ? ` (only ${realTurns} exist: all of them)` : '';
    choices.push({ label: String(n), description: `the last ${n === 1 ? 'real turn' : `${n} real turns`}${more}`, value: String(n) });
  }
  choices.push({ label: 'Custom…', description: 'another number of recent real turns' });
  return choices;
}

export function turnsHint(realTurns: number): string {
  return `This conversation has ${realTurns} real turn${realTurns === 1 ? '' : 's'}.`;
}

/** The input box's check: the parser's message, or undefined when the value is accepted. */
export function validateTurns(text: string): string | undefined {
  const parsed = parseForkTurns(text, 'user');
  return parsed.ok ? undefined : parsed.error;
}
