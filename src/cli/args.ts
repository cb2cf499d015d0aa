// Command-line parsing for fork-agents: a verb, then options parsed by Node's util.parseArgs (strict: an
// unknown option or a missing value is a usage error naming it), then positional text.
import { parseArgs as parseNodeArgs } from 'node:util';

type ParsedToken = NonNullable<ReturnType<typeof parseNodeArgs>['tokens']>[number];

export class UsageError extends Error {}

export interface ParsedArgs {
  verb: string;
  /** String options by name (without the dashes). */
  flags: Map<string, string>;
  /** Boolean options that were given. */
  switches: Set<string>;
  positional: string[];
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string };

/** Options every command takes. */
const COMMON: Record<string, OptionSpec> = {
  cwd: { type: 'string' },
  store: { type: 'string' },
  model: { type: 'string' },
  approval: { type: 'string' },
  'worktree-root': { type: 'string' },
  sandbox: { type: 'string' },
  'allow-network': { type: 'string' },
  prices: { type: 'string' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

interface CommandSpec {
  /** One usage line (or more) after `fork-agents `. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
}

const session: OptionSpec = { type: 'string' };
const fork: OptionSpec = { type: 'string' };
const wait: OptionSpec = { type: 'boolean' };
const budget: OptionSpec = { type: 'string' };
const trustMcp: OptionSpec = { type: 'boolean' };

export const COMMANDS: Record<string, CommandSpec> = {
  chat: {
    usage: 'chat --cwd DIR [--session ID] [--approval ask|auto-edit|auto] [--thinking-budget TOKENS] [--effort low|medium|high|xhigh|max] [--cache-ttl 5m|1h] [--trust-mcp] [--json] "prompt"\n' +
      '  (--thinking-budget: manual thinking budget for a new session on models that take one, 0 = off; --effort: its effort on models that take\n' +
      '   effort, default the model\'s own; --cache-ttl: its prompt-cache TTL; forks keep all three)\n' +
      '  (MCP servers: ~/.config/fork-agents/mcp.json; the repository\'s .vscode/mcp.json ones only with --trust-mcp\n' +
      '   or when their command line / URL is in the trustedWorkspaceServers of ~/.config/fork-agents/mcp.json)',
    summary: 'one parent turn in a new or existing session; prints the session id',
    options: { session, 'thinking-budget': { type: 'string' }, effort: { type: 'string' }, 'cache-ttl': { type: 'string' }, 'trust-mcp': trustMcp },
  },
  fork: {
    usage: 'fork --session ID [--approval ask|auto-edit|auto] [--turns all|N] [--at ENTRY_ID] [--isolation worktree|shared] [--worktree-root DIR] [--worktree-setup CMD] [--budget 0.25|20000tokens] [--model ID] [--trust-mcp] [--wait] [--json] "directive"\n' +
      'fork --session ID --attempts N [--models a,b,c] [--verify CMD] [--different] [--budget …] [--wait] [--json] "directive"\n' +
      '  (a tournament: N attempts (1–8) of the directive, each in its own worktree; --verify runs in each when it ends\n' +
      '   (default: fork.tournament.verify, else the project\'s test script; "" for none); --budget is for all attempts\n' +
      '   together; --different asks attempts 2..N for another approach; --wait --json: a line per attempt, then the result)\n' +
      '  (--turns N: the last N turns (1–10000), all of them when the chat has fewer; default all)\n' +
      '  (--approval: default the mode the session\'s chat last ran with (ask if none recorded); it is the fork\'s ceiling for send;\n' +
      '   --wait on a terminal asks the fork\'s approvals here, y/N, as chat does; without a terminal a connected editor\n' +
      '   answers them, else they are refused after a bounded wait)\n' +
      '  (--worktree-setup: CMD runs in the new worktree before the fork\'s first tool call; its output is shown with --wait;\n' +
      '   --budget: dollars, or tokens with the suffix; the fork pauses in paused (budget) once it has spent that;\n' +
      '   --model: another model than the session\'s; the fork then starts with a cold cache (no shared prompt cache, costs more);\n' +
      '   MCP servers: those of the session\'s chat folder (or --cwd), as for chat; --trust-mcp for its .vscode/mcp.json ones)',
    summary: 'start a background fork of a session (worktree isolation by default in a git repository); prints the fork id, or its report with --wait',
    options: {
      session, turns: { type: 'string' }, at: { type: 'string' }, isolation: { type: 'string' }, 'worktree-setup': { type: 'string' }, budget, model: { type: 'string' }, wait, 'trust-mcp': trustMcp,
      attempts: { type: 'string' }, models: { type: 'string' }, verify: { type: 'string' }, different: { type: 'boolean' },
    },
  },
  compare: {
    usage: 'compare --group ID [--json]',
    summary: 'a tournament\'s attempts side by side: state, verify result, files and lines changed, numbered hunks, cost, cache share, verdict',
    options: { group: { type: 'string' } },
  },
  send: {
    usage: 'send --fork ID [--approval ask|auto-edit|auto] [--loosen-approval] [--budget 0.25|20000tokens] [--trust-mcp] [--wait] [--json] ["message"]\n' +
      '  (--approval is capped by the mode the fork was launched with unless --loosen-approval confirms a looser one;\n' +
      '   --budget raises the fork\'s budget; --budget alone continues a paused fork; MCP servers as for fork)',
    summary: 'continue a fork with a message',
    options: { fork, budget, wait, 'trust-mcp': trustMcp, 'loosen-approval': { type: 'boolean' } },
  },
  stop: {
    usage: 'stop --fork ID | --group ID [--json]\n' +
      '  (--group: every attempt of a tournament, queued, running, waiting for approval or paused, and its judge;\n' +
      '   returns once they have ended; their worktrees stay for review, apply or discard)',
    summary: 'stop a fork, or every attempt of a tournament',
    options: { fork, group: { type: 'string' } },
  },
  compact: {
    usage: 'compact --session ID [--json] ["focus"]',
    summary: 'summarise a session to free its context window',
    options: { session },
  },
  list: {
    usage: 'list [--cwd DIR] [--json]',
    summary: 'the sessions and forks of the store (of one workspace with --cwd) and the store\'s size on disk',
    options: {},
  },
  transcript: {
    usage: 'transcript --session ID | --fork ID [--cache] [--json]\n' +
      '  (--cache: the cache explorer, one line per request)',
    summary: 'print a session\'s or a fork\'s transcript',
    options: { session, fork, cache: { type: 'boolean' } },
  },
  delete: {
    usage: 'delete --session ID | --fork ID [--force] [--json]\n' +
      '  (a fork\'s worktree and branch go with it, a chat\'s forks\' worktrees with the chat; changes never\n' +
      '   applied or kept refuse the delete, --force discards them; a kept branch stays)',
    summary: 'delete a chat (its forks keep their history) or a finished fork; history nothing references is removed',
    options: { session, fork, force: { type: 'boolean' } },
  },
  rewind: {
    usage: 'rewind --session ID --at ENTRY [--code | --conversation] [--yes] [--json]\n' +
      '       rewind --session ID --undo [--yes] [--json]\n' +
      '  (files and conversation back to ENTRY, its last kept entry — neither option: both; files that also\n' +
      '   changed outside the agent are listed and left unless --yes; --undo takes back the latest rewind)',
    summary: 'rewind a chat\'s files and conversation to an earlier entry, or undo the latest rewind',
    options: { session, at: { type: 'string' }, code: { type: 'boolean' }, conversation: { type: 'boolean' }, undo: { type: 'boolean' }, yes: { type: 'boolean' } },
  },
  review: {
    usage: 'review --fork ID [--json]',
    summary: 'a worktree fork\'s changed files (stderr) and patch (stdout)',
    options: { fork },
  },
  apply: {
    usage: 'apply --fork ID [--on-conflict refuse|markers] [--json]\n' +
      'apply --group ID (--fork ID | --winner | --hunks "1:1,2 2:3") [--discard-rest [--keep-branches]] [--json]\n' +
      '  (--hunks: ATTEMPT:N,N… per attempt (its number or fork id; hunk numbers as compare lists them, or all;\n' +
      '   compare --json gives each hunk\'s text);\n' +
      '   chosen hunks that overlap are shown as conflicts and nothing is written; --discard-rest removes every\n' +
      '   attempt\'s worktree afterwards, --keep-branches commits each to its branch first)',
    summary: 'apply a worktree fork\'s changes (or a tournament\'s winner or chosen hunks) to the main working tree, uncommitted',
    options: {
      fork, 'on-conflict': { type: 'string' }, group: { type: 'string' }, hunks: { type: 'string' }, winner: { type: 'boolean' },
      'discard-rest': { type: 'boolean' }, 'keep-branches': { type: 'boolean' },
    },
  },
  keep: {
    usage: 'keep --fork ID [--json]',
    summary: 'commit the fork\'s work to its branch fork/…, remove nothing',
    options: { fork },
  },
  discard: {
    usage: 'discard --fork ID [--json]',
    summary: 'stop a fork; remove its worktree, branch and folder',
    options: { fork },
  },
  doctor: {
    usage: 'doctor [--store DIR] [--repair] [--json]\n' +
      '  (checks transcripts and their sealed segments, forks\' launch records, checkpoint repositories, the lock,\n' +
      '   the socket, owners and modes, and temporary files a killed runtime left; says per item what it found.\n' +
      '   --repair: writes what loading mends (entries read back from segments, exchanges closed) after the damage —\n' +
      '   transcripts stay append-only —, cuts torn last lines, makes modes private, removes leftovers; it refuses\n' +
      '   while a runtime serves the store. Without --repair it only reads.\n' +
      '   exit codes: 0 nothing wrong (or all repaired), 3 problems remain, 4 --repair refused: a runtime serves\n' +
      '   the store, 1 the doctor could not run, 2 bad input)',
    summary: 'check a store and, with --repair, mend what can be mended',
    options: { repair: { type: 'boolean' } },
  },
};

const COMMON_HELP = `common options:
  --cwd DIR            the workspace folder (a git repository enables worktree forks)
  --store DIR          where sessions live (default: FORK_AGENTS_HOME or ~/.fork-agents)
  --model NAME         the model for new sessions (fork: the fork's model, default the session's)
  --approval MODE      ask (chat's default: the terminal asks) | auto-edit | auto; fork's default: its chat's mode; a fork's
                       approvals are asked by fork --wait on a terminal, else by a connected editor
  --sandbox MODE       auto (default: the OS sandbox where bubblewrap / macOS can, else as without) | required | off;
                       for the forks this command starts or continues
  --allow-network H,H  hosts (or *.suffix) the sandboxed forks may reach through their filtering proxy; default none
  --demo               use the local scripted demo model: no key, no network
  --prices FILE        model prices, JSON: { "model-id": { "input": 2, "output": 10 } } in $ per million tokens
                       (default: FORK_AGENTS_PRICES; without either, the built-in table)
  --json               one JSON object per line; the last one is the result
  -h, --help           this help (also: fork-agents <command> --help)
environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, FORK_AGENTS_HOME, FORK_AGENTS_PRICES;
  FORK_AGENTS_PROVIDER=bedrock|vertex (AWS / Google credentials); HTTPS_PROXY and NO_PROXY apply.
exit codes: 0 success, 2 bad input, 1 failure.`;

export const USAGE = [
  'usage: fork-agents <command> [options]',
  '',
  'commands:',
  ...Object.entries(COMMANDS).map(([verb, spec]) => `  ${verb.padEnd(11)}${spec.summary}`),
  '',
  COMMON_HELP,
  '',
  'fork-agents --version prints the version.',
].join('\n');

export function commandUsage(verb: string): string {
  const spec = COMMANDS[verb];
  return `usage: fork-agents ${spec.usage}\n\n${spec.summary}.\n\n${COMMON_HELP}`;
}

export type CommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; args: ParsedArgs };

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { kind: 'help', text: USAGE };
  if (first === '--version' || first === '-v') return { kind: 'version' };
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first} before the command (see fork-agents --help)`);
  const spec = COMMANDS[first];
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(first)} (commands: ${Object.keys(COMMANDS).join(', ')})`);
  const options = { ...COMMON, ...spec.options };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  let tokens: ParsedToken[];
  try {
    ({ values, positionals, tokens } = parseNodeArgs({
      args: attachDashValues(rest, options),
      options,
      strict: true,
      allowPositionals: true,
      tokens: true,
    }));
  } catch (error) {
    throw new UsageError(`${first}: ${describeParseError(error)}`);
  }
  const repeated = repeatedValueOption(tokens);
  if (repeated) throw new UsageError(`${first}: ${repeated}`);
  if (values.help === true) return { kind: 'help', text: commandUsage(first) };
  const args: ParsedArgs = { verb: first, flags: new Map(), switches: new Set(), positional: positionals };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') args.flags.set(name, value);
    else if (value === true) args.switches.add(name);
  }
  return { kind: 'run', args };
}

/**
 * `--turns -1` is a value that looks like an option; util.parseArgs calls it ambiguous. When the word after a
 * string option is not itself one of our options, it is that option's value (`--turns=-1`), so the value's
 * own check answers with the accepted forms.
 */
function attachDashValues(argv: readonly string[], options: Record<string, OptionSpec>): string[] {
  const isOption = (word: string) => {
    const name = word.startsWith('--') ? word.slice(2).split('=', 1)[0] : undefined;
    if (name !== undefined) return name === '' || name in options;
    return Object.values(options).some(o => o.short !== undefined && word === `-${o.short}`);
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const name = word.startsWith('--') && !word.includes('=') ? word.slice(2) : undefined;
    const next = argv[i + 1];
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && next.startsWith('-') && !isOption(next)) {
      out.push(`${word}=${next}`);
      i++;
    } else {
      out.push(word);
    }
    if (word === '--') {
      out.push(...argv.slice(i + 1));
      break;
    }
  }
  return out;
}

/**
 * util.parseArgs keeps the last of a repeated option. No option of ours takes a list by repetition
 * (--models is comma-separated), so a second value is a mistake to name rather than a silent override;
 * a switch given twice means the same as once.
 */
function repeatedValueOption(tokens: readonly ParsedToken[]): string | undefined {
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const first = seen.get(token.name);
    if (first !== undefined) return `--${token.name} given twice (${JSON.stringify(first)}, then ${JSON.stringify(token.value)}); give it once`;
    seen.set(token.name, token.value);
  }
  return undefined;
}

/** util.parseArgs's messages, first sentence only (they go on for a while about `--`). */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split(/(?<=\.)\s/, 1)[0];
  return first.replace(/^Unknown option/, 'unknown option').replace(/^Option/, 'option');
}
