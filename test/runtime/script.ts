// Shorthands for scripted model turns.
import type { ScriptedTurn } from '../fakes/anthropicServer';

export function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }] };
}

export function call(...calls: [name: string, input: unknown][]): ScriptedTurn {
  return { content: calls.map(([name, input]) => ({ type: 'tool_use' as const, name, input })) };
}

export function sayThenCall(text: string, name: string, input: unknown): ScriptedTurn {
  return { content: [{ type: 'text', text }, { type: 'tool_use', name, input }] };
}
