// Command-line parsing for fork-agents: a verb, --flags with values, boolean switches, positional text.

export class UsageError extends Error {}

export interface ParsedArgs {
  verb: string;
  flags: Map<string, string>;
  switches: Set<string>;
  positional: string[];
}

const SWITCHES = new Set(['json', 'wait', 'help', 'trust-mcp']);

export function parseArgs(argv: string[], knownFlags: ReadonlySet<string>): ParsedArgs {
  const [verb = 'help', ...rest] = argv;
  const parsed: ParsedArgs = { verb, flags: new Map(), switches: new Set(), positional: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--') {
      parsed.positional.push(...rest.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    const [name, inline] = splitOnce(arg.slice(2), '=');
    if (SWITCHES.has(name)) {
      parsed.switches.add(name);
      continue;
    }
    if (!knownFlags.has(name)) throw new UsageError(`unknown option --${name}`);
    const value = inline ?? rest[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    parsed.flags.set(name, value);
  }
  return parsed;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}

export const USAGE = `usage:
  fork-agents chat  --cwd DIR [--session ID] [--approval ask|auto-edit|auto] [--trust-mcp] [--json] "prompt"
                    (MCP: ~/.config/fork-agents/mcp.json; the repository's .vscode/mcp.json only with --trust-mcp
                    or its command line / URL in that file's trustedWorkspaceServers)
  fork-agents fork  --session ID [--turns all|N] [--at ENTRY_ID] [--isolation worktree|shared] [--worktree-root DIR]
                    [--wait] [--json] "directive"        (isolation: worktree by default inside a git repository)
  fork-agents send  --fork ID [--wait] [--json] "message"
  fork-agents compact --session ID [--json] ["focus"]
  fork-agents list  [--cwd DIR] [--json]
  fork-agents transcript --session ID | --fork ID [--json]
  fork-agents review  --fork ID [--json]              a worktree fork's changed files (stderr) and patch (stdout)
  fork-agents apply   --fork ID [--on-conflict refuse|markers] [--json]   onto the main working tree, uncommitted
  fork-agents keep    --fork ID [--json]              commit the fork's work to its branch fork/…, remove nothing
  fork-agents discard --fork ID [--json]              stop it; remove its worktree, branch and folder
common: --store DIR (or FORK_AGENTS_HOME), --model NAME; ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are honoured;
  FORK_AGENTS_PROVIDER=bedrock|vertex (AWS / Google credentials); HTTPS_PROXY and NO_PROXY apply.
exit codes: 0 success, 2 bad input, 1 failure.`;
