// The Agent tool: forks (inherit the conversation, run in the background) and regular subagents
// (start fresh with their own prompt). Declared in every session, forks included, for cache parity.
import { FORK_TURNS_FORMS, parseForkTurns } from '../../common/forkTurns';
import { MAX_ATTEMPTS } from '../../common/tournament';
import { expectObject, optionalBoolean, optionalInteger, optionalString, requireString } from './input';
import type { AgentToolInput, Tool } from './types';
import { ToolError } from './types';

const NAME = 'Agent';
const TYPES = ['fork', 'general-purpose', 'explore'] as const;
const FIELDS = ['subagent_type', 'description', 'prompt', 'fork_turns', 'isolation', 'run_in_background', 'attempts'];

/** One validation for the tool (docs/design.md §4.1, §4.4); every rejection names the accepted forms. */
export function parseAgentInput(input: unknown): AgentToolInput {
  const fields = expectObject(NAME, input, FIELDS);
  const type = fields.subagent_type;
  if (type !== undefined && !TYPES.includes(type as (typeof TYPES)[number])) {
    throw new ToolError(`${NAME}: subagent_type must be one of ${TYPES.join(', ')} (got ${JSON.stringify(type)}).`);
  }
  if (fields.fork_turns !== undefined && type !== 'fork') {
    throw new ToolError(`${NAME}: fork_turns is only accepted with subagent_type "fork"; regular subagents start without the conversation.`);
  }
  const description = requireString(NAME, fields, 'description');
  const prompt = requireString(NAME, fields, 'prompt');
  if (prompt.trim() === '') throw new ToolError(`${NAME}: prompt must not be empty.`);
  const turns = parseForkTurns(fields.fork_turns);
  if (!turns.ok) throw new ToolError(`${NAME}: ${turns.error}`);
  const isolation = optionalString(NAME, fields, 'isolation');
  if (isolation !== undefined && isolation !== 'worktree' && isolation !== 'shared') {
    throw new ToolError(`${NAME}: isolation must be "worktree" or "shared" (got ${JSON.stringify(isolation)}).`);
  }
  const kind = (type ?? 'general-purpose') as AgentToolInput['subagent_type'];
  const background = optionalBoolean(NAME, fields, 'run_in_background');
  const attempts = optionalInteger(NAME, fields, 'attempts', 1, MAX_ATTEMPTS);
  if (attempts !== undefined && attempts > 1 && kind !== 'fork') throw new ToolError(`${NAME}: attempts is only accepted with subagent_type "fork".`);
  if (attempts !== undefined && attempts > 1 && isolation === 'shared') throw new ToolError(`${NAME}: attempts need worktrees; leave isolation out or set it to "worktree".`);
  return {
    subagent_type: kind,
    description,
    prompt,
    fork_turns: kind === 'fork' ? turns.value : undefined,
    isolation,
    run_in_background: kind === 'fork' || background === true,
    ...(attempts !== undefined && attempts > 1 ? { attempts } : {}),
  };
}

export const agentTool: Tool = {
  definition: {
    name: NAME,
    description: [
      'Start another agent.',
      '- subagent_type "fork": a background copy of you that inherits this conversation (all of it, or only the',
      `  last N real user turns with fork_turns: ${FORK_TURNS_FORMS}) and works on the directive in "prompt".`,
      '  You get its id at once; its report arrives later as a <fork-notification>. Use forks for side work that',
      '  needs your context. Put in the prompt anything a narrowed window would miss.',
      '- subagent_type "general-purpose" or "explore" (read-only): a fresh agent that does NOT see this',
      '  conversation; give it a self-contained prompt. It answers as this tool\'s result, or later as a',
      '  notification with run_in_background: true.',
    ].join('\n'),
    input_schema: {
      type: 'object',
      properties: {
        subagent_type: { type: 'string', enum: [...TYPES], description: 'fork, general-purpose (default) or explore.' },
        description: { type: 'string', description: 'A short (3-6 word) name for the task.' },
        prompt: { type: 'string', description: 'The directive (fork) or the full task (other types).' },
        fork_turns: {
          type: 'string',
          pattern: '^(all|[1-9][0-9]*)$',
          description: 'Forks only: "all" (default) or how many recent real user turns to inherit, e.g. "2".',
        },
        isolation: { type: 'string', enum: ['worktree', 'shared'], description: 'Forks: own git worktree or the shared folder.' },
        run_in_background: { type: 'boolean', description: 'Regular subagents: return at once and report later.' },
        attempts: {
          type: 'integer', minimum: 1, maximum: MAX_ATTEMPTS,
          description: 'Forks only: run the directive as a tournament of this many attempts, each in its own worktree, verified and compared; the user applies the best.',
        },
      },
      required: ['description', 'prompt'],
      additionalProperties: false,
    },
  },
  category: 'read',
  describe(input) {
    const fields = (input ?? {}) as Record<string, unknown>;
    const type = typeof fields.subagent_type === 'string' ? fields.subagent_type : 'general-purpose';
    const description = typeof fields.description === 'string' ? fields.description : 'task';
    return type === 'fork' ? `Fork: ${description}` : `Agent (${type}): ${description}`;
  },
  async run(input, ctx) {
    const parsed = parseAgentInput(input);
    if (!ctx.subagents || !ctx.callId) throw new ToolError(`${NAME}: subagents are not available here.`);
    return ctx.subagents.run(parsed, ctx.callId, ctx.signal);
  },
};
