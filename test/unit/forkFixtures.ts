// Realistic parent transcripts for the fork unit tests (docs/design.md §3–§4.5). Every entry is deep-frozen,
// as committed entries are in a session; the returned arrays themselves are plain (a session's view).
import { agentTool } from '../../src/runtime/tools/agent';
import { toolDefinitions } from '../../src/runtime/tools/registry';
import type { ContentBlock, Entry, EntryKind, Message, ModelSettings, SessionHeader, TextBlock, ThinkingBlock, ToolDefinition, ToolUseBlock } from '../../src/common/transcript';
import { deepFreeze } from '../../src/common/transcript';
import { thinkingSignature } from '../fakes/ids';

export const STARTUP_TEXT = [
  '<system-reminder>',
  'Environment: workspace root /work/repo (cwd /work/repo), OS linux, date 2025-03-14.',
  'Git: branch main, 2 files modified.',
  'Instructions from AGENTS.md: run `npm test` before finishing.',
  '</system-reminder>',
].join('\n');

export const SUMMARY_TEXT = 'Summary of the earlier conversation: the user asked to scaffold a parser; src/parse.ts was created.';

export function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

export function thought(value: string): ThinkingBlock {
  return { type: 'thinking', thinking: value, signature: thinkingSignature(value) };
}

export function reminderText(body: string): string {
  return `<system-reminder>\n${body}\n</system-reminder>`;
}

/** Builds one transcript: ids e1, e2, … and tool_use ids toolu_1, toolu_2, … in commit order. */
export class Transcript {
  readonly entries: Entry[] = [];
  private nextEntry = 1;
  private nextTool = 1;

  add(kind: EntryKind, role: Message['role'], content: ContentBlock[]): Entry {
    const seq = this.nextEntry++;
    const entry = deepFreeze<Entry>({
      id: `e${seq}`,
      kind,
      time: new Date(Date.UTC(2025, 2, 14, 9, 0, seq)).toISOString(),
      message: { role, content },
    });
    this.entries.push(entry);
    return entry;
  }

  startup(body = STARTUP_TEXT): Entry {
    return this.add('startup', 'user', [text(body)]);
  }

  summary(body = SUMMARY_TEXT): Entry {
    return this.add('summary', 'user', [text(body)]);
  }

  prompt(value: string): Entry {
    return this.add('prompt', 'user', [text(value)]);
  }

  /** A pure system reminder entry (not a real user turn). */
  reminder(body: string): Entry {
    return this.add('reminder', 'user', [text(reminderText(body))]);
  }

  /** A finished fork's report as the parent receives it (a pure reminder, not a real user turn). */
  notification(report: string): Entry {
    return this.add('notification', 'user', [text(reminderText(`<fork-notification>\n${report}\n</fork-notification>`))]);
  }

  call(name: string, input: Record<string, unknown>): ToolUseBlock {
    return { type: 'tool_use', id: `toolu_${this.nextTool++}`, name, input };
  }

  forkCall(description: string, prompt: string, extra: Record<string, unknown> = {}): ToolUseBlock {
    return this.call('Agent', { subagent_type: 'fork', description, prompt, ...extra });
  }

  response(...content: ContentBlock[]): Entry {
    return this.add('response', 'assistant', content);
  }

  /** Results for every tool_use of `response`, plus optional extra blocks (e.g. a reminder) after them. */
  results(response: Entry, extra: ContentBlock[] = []): Entry {
    const uses = response.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    return this.add('tool_results', 'user', [
      ...uses.map(use => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `output of ${use.name} ${use.id}` })),
      ...extra,
    ]);
  }
}

export interface RichParent {
  entries: Entry[];
  /** The real user turns, oldest first. */
  realTurns: Entry[];
  /** Entries that are user-role but not real turns. */
  notReal: Entry[];
  /** The current turn's response with unanswered calls: two Agent fork calls and a read_file. */
  current: Entry;
  byId(id: string): Entry;
}

/**
 * A parent session mid-turn: startup context, reminders, empty/whitespace texts (optional: the API rejects
 * them, so request tests leave them out), tool results (one carrying a reminder), a fork notification,
 * thinking, three real user turns, and a current turn whose last response has three unanswered calls.
 */
export function richParent(options: { emptyTexts?: boolean } = {}): RichParent {
  const t = new Transcript();
  const notReal: Entry[] = [];
  const realTurns: Entry[] = [];
  notReal.push(t.startup());
  notReal.push(t.reminder('The user opened src/parse.ts.'));
  realTurns.push(t.prompt('Read src/parse.ts and explain what parse() returns.'));
  const r1 = t.response(thought('I should read the file first.'), text('Let me read it.'), t.call('read_file', { path: 'src/parse.ts' }));
  notReal.push(t.results(r1));
  t.response(text('parse() returns a Result<Ast, ParseError>.'));
  realTurns.push(t.prompt('Add input validation to parse().'));
  const r2 = t.response(thought('Edit, then run the tests.'), t.call('edit_file', { path: 'src/parse.ts', old: 'a', new: 'b' }), t.call('bash', { command: 'npm test' }));
  notReal.push(t.results(r2, [text(reminderText('Tests are slow in this repo; prefer a focused run.'))]));
  t.response(text('Validation added; tests pass.'));
  notReal.push(t.notification('Scope: audit docs\nResult: README is up to date.'));
  if (options.emptyTexts) {
    notReal.push(t.add('prompt', 'user', [text('')]));
    notReal.push(t.add('prompt', 'user', [text('   \n\t ')]));
    notReal.push(t.add('reminder', 'user', [text(''), text(reminderText('Date changed to 2025-03-15.'))]));
  }
  notReal.push(t.reminder('The user edited src/parse.ts.'));
  realTurns.push(t.prompt('Now write tests for parse() and update the docs; fork workers for both.'));
  const r3 = t.response(thought('Look at the existing tests first.'), t.call('grep', { pattern: 'parse\\(' }));
  notReal.push(t.results(r3));
  const current = t.response(
    thought('Two forks, and read the changelog meanwhile.'),
    text('Starting two forks.'),
    t.forkCall('write tests', 'Write unit tests for parse().', { fork_turns: '2' }),
    t.forkCall('update docs', 'Document the validation rules in README.md.'),
    t.call('read_file', { path: 'CHANGELOG.md' }),
  );
  const entries = t.entries;
  return { entries, realTurns, notReal, current, byId: id => entries.find(e => e.id === id)! };
}

/** A compacted parent: startup, summary, then two real turns with reminders and tool results, and a
 * trailing prompt that has not been answered yet. */
export function compactedParent(): { entries: Entry[]; summary: Entry; realTurns: Entry[]; trailing: Entry } {
  const t = new Transcript();
  t.startup();
  const summary = t.summary();
  t.reminder('Context was compacted.');
  const p1 = t.prompt('Continue with the error messages.');
  const r1 = t.response(text('Reading.'), t.call('read_file', { path: 'src/errors.ts' }));
  t.results(r1);
  t.response(text('Error messages improved.'));
  t.add('prompt', 'user', [text('  ')]);
  const trailing = t.prompt('Also log them.');
  return { entries: t.entries, summary, realTurns: [p1, trailing], trailing };
}

export const SYSTEM_PROMPT = [
  'You are a coding agent working in the user\'s repository inside VS Code.',
  'Use the tools to read, search and edit files; keep changes small and explain them briefly.',
].join('\n');

/** The session's tool definitions: the registry's, which must declare Agent (kept in forks for cache parity). */
function sessionTools(): ToolDefinition[] {
  const tools = toolDefinitions();
  return tools.some(tool => tool.name === agentTool.definition.name) ? tools : [...tools, structuredClone(agentTool.definition)];
}

export function header(settings: Partial<ModelSettings> = {}): SessionHeader {
  return deepFreeze<SessionHeader>({
    id: 's-parent',
    createdAt: '2025-03-14T09:00:00.000Z',
    root: '/work/repo',
    title: 'parse work',
    systemPrompt: SYSTEM_PROMPT,
    tools: sessionTools(),
    settings: { model: 'claude-sonnet-4-5', maxTokens: 16000, ...settings },
  });
}

/** The entry a fork commits for its closing message (as createForkSession does). */
export function closingEntry(message: Message): Entry {
  return deepFreeze<Entry>({ id: 'e-closing', kind: 'prompt', time: '2025-03-14T10:00:00.000Z', message });
}

/** richParent with its open calls answered and a final answer: the parent answered its last prompt with text. */
export function finishedParent(): Entry[] {
  const entries = richParent().entries.slice();
  const t = new Transcript();
  const current = entries[entries.length - 1];
  const done = t.add('tool_results', 'user', current.message.content.flatMap(b => (b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'done' }] : [])));
  const answer = t.add('response', 'assistant', [text('Both forks started; CHANGELOG read.')]);
  return [...entries, { ...done, id: 'x1' }, { ...answer, id: 'x2' }];
}
