// The CLI's argument checks as functions: the command line's parse (help, version, usage errors that name
// the flag) and each command's own checks that run before it connects to anything. The runtime tests spawn
// the real CLI only for what needs a process: the exit code, the one-line stderr and a refused request.
import * as assert from 'node:assert/strict';
import { COMMANDS, commandUsage, parseCommandLine, UsageError } from '../../src/cli/args';
import type { ParsedArgs } from '../../src/cli/args';
import { chatCommand } from '../../src/cli/commands/chat';
import { sessionSettingsOf } from '../../src/cli/connect';
import { forkCommand } from '../../src/cli/commands/fork';
import { stopCommand } from '../../src/cli/commands/stop';
import { applyCommand } from '../../src/cli/commands/worktree';
import { cliPrices } from '../../src/cli/pricesFile';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function parsed(...argv: string[]): ParsedArgs {
  const line = parseCommandLine(argv);
  assert.equal(line.kind, 'run', argv.join(' '));
  return (line as { kind: 'run'; args: ParsedArgs }).args;
}

function usageError(message: RegExp) {
  return (error: unknown) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n');
}

describe('cli arguments', () => {
  it('help lists every command; a command\'s --help is its usage; --version asks for the version', () => {
    const help = parseCommandLine(['--help']);
    assert.equal(help.kind, 'help');
    for (const verb of ['chat', 'fork', 'send', 'list', 'transcript', 'review', 'apply', 'keep', 'discard', 'doctor']) {
      assert.ok(verb in COMMANDS, verb);
      assert.match((help as { text: string }).text, new RegExp(`^  ${verb} `, 'm'));
    }
    assert.deepEqual(parseCommandLine([]).kind, 'help');
    const forkHelp = parseCommandLine(['fork', '--help']);
    assert.equal(forkHelp.kind, 'help');
    assert.match((forkHelp as { text: string }).text, /^usage: fork-agents fork --session ID/);
    assert.deepEqual(parseCommandLine(['--version']), { kind: 'version' });
    const doctorHelp = parseCommandLine(['doctor', '--help']);
    assert.match((doctorHelp as { text: string }).text, /exit codes: 0 nothing wrong \(or all repaired\), 3 problems remain, 4 --repair refused/);
  });

  it('a usage error names the flag or command in one line', () => {
    const cases: [string[], RegExp][] = [
      [['chat', '--cwd', '.', '--frobnicate', 'hi'], /unknown option '--frobnicate'/],
      [['fork', '--session'], /'--session <value>' argument missing/],
      [['list', '--wait'], /unknown option '--wait'/],
      [['frob'], /unknown command "frob"/],
      [['--nope'], /unknown option --nope/],
    ];
    for (const [argv, message] of cases) assert.throws(() => parseCommandLine(argv), usageError(message), argv.join(' '));
  });

  it('splits flags, switches and text, and takes a dash-led value as the value of a string option', () => {
    const args = parsed('fork', '--session', 's-1', '--turns', '-1', '--wait', 'do', 'this');
    assert.equal(args.verb, 'fork');
    assert.equal(args.flags.get('session'), 's-1');
    assert.equal(args.flags.get('turns'), '-1');
    assert.ok(args.switches.has('wait'));
    assert.deepEqual(args.positional, ['do', 'this']);
  });

  it('fork refuses --turns that is not "all" or a positive whole number, before it connects', async () => {
    await assert.rejects(
      forkCommand(parsed('fork', '--session', 's-00000000-0000', '--turns', '1.5', 'x')),
      usageError(/^--turns: Invalid turn count "1\.5": use "all" or a positive whole number such as 3\.$/),
    );
    for (const bad of ['none', '0', '-1', ' 3', '3 ', '+3', '03', '1e2', '']) {
      await assert.rejects(
        forkCommand(parsed('fork', '--session', 's-00000000-0000', '--turns', bad, 'x')),
        usageError(/"all" or a positive whole number/),
        `--turns ${JSON.stringify(bad)}`,
      );
    }
  });

  it('fork refuses a --turns beyond the most turns a chat can have, naming the range; fewer turns in the chat takes them all', async () => {
    await assert.rejects(
      forkCommand(parsed('fork', '--session', 's-00000000-0000', '--turns', '1000000000', 'x')),
      usageError(/^--turns: The turn count "1000000000" is too large; use "all" or a whole number from 1 to 10000\.$/),
    );
    assert.equal(parseCommandLine(['fork', '--session', 's-1', '--turns', '10000', 'x']).kind, 'run');
    assert.match(commandUsage('fork'), /--turns N: the last N turns \(1–10000\), all of them when the chat has fewer/);
  });

  it('a single-value option given twice is a usage error naming it; a switch given twice is the switch', () => {
    assert.throws(() => parseCommandLine(['fork', '--session', 's-1', '--turns', '2', '--turns', '3', 'x']),
      usageError(/^fork: --turns given twice \("2", then "3"\); give it once$/));
    assert.throws(() => parseCommandLine(['chat', '--cwd', '.', '--cwd=/tmp', 'x']), usageError(/^chat: --cwd given twice/));
    assert.ok(parsed('fork', '--session', 's-1', '--wait', '--wait', 'x').switches.has('wait'));
  });

  it('--thinking-budget, --cache-ttl and --effort of a new session are checked before it connects', () => {
    assert.deepEqual(sessionSettingsOf(parsed('chat', '--cwd', '.', '--thinking-budget', '2048', '--cache-ttl', '1h', '--effort', 'low', 'x')),
      { thinkingBudgetTokens: 2048, cacheTtl: '1h', effort: 'low' });
    assert.deepEqual(sessionSettingsOf(parsed('chat', '--cwd', '.', 'x')), { thinkingBudgetTokens: undefined, cacheTtl: undefined, effort: undefined });
    assert.throws(() => sessionSettingsOf(parsed('chat', '--cwd', '.', '--cache-ttl', '2h', 'x')), usageError(/^--cache-ttl must be 5m or 1h \(got "2h"\)$/));
    assert.throws(() => sessionSettingsOf(parsed('chat', '--cwd', '.', '--effort', 'huge', 'x')), usageError(/^--effort must be low, medium, high, xhigh or max \(got "huge"\)$/));
    assert.throws(() => sessionSettingsOf(parsed('chat', '--cwd', '.', '--thinking-budget', 'lots', 'x')), usageError(/^--thinking-budget must be a whole number of tokens/));
  });

  it('chat needs --cwd, before it connects', async () => {
    await assert.rejects(chatCommand(parsed('chat', 'hello')), usageError(/--cwd DIR is required/));
  });

  it('--help lists stop and stop --help is its usage; stop needs exactly one of --fork or --group, before it connects', async () => {
    const help = parseCommandLine(['--help']) as { kind: string; text: string };
    assert.match(help.text, /^ {2}stop +stop a fork, or every attempt of a tournament$/m);
    const stopHelp = parseCommandLine(['stop', '--help']) as { kind: string; text: string };
    assert.equal(stopHelp.kind, 'help');
    assert.match(stopHelp.text, /^usage: fork-agents stop --fork ID \| --group ID/);
    for (const argv of [['stop', '--json'], ['stop', '--fork', 'f-1', '--group', 'g-1']]) {
      await assert.rejects(stopCommand(parsed(...argv)), usageError(/stop needs exactly one of --fork ID or --group ID/), argv.join(' '));
    }
  });

  it('fork refuses a --budget that is neither dollars nor tokens, and a --model that is not a model id, before it connects', async () => {
    await assert.rejects(forkCommand(parsed('fork', '--session', 's-1', '--budget', 'lots', 'list')), usageError(/^--budget: A budget is dollars/));
    await assert.rejects(forkCommand(parsed('fork', '--session', 's-1', '--model', 'two words', 'bad')), usageError(/^--model: model "two words" is not a model id/));
  });

  it('apply needs --fork (or --group), before it connects', async () => {
    await assert.rejects(applyCommand(parsed('apply')), usageError(/^apply needs --fork ID$/));
  });

  it('--prices names the file it cannot read and the price that is not a number', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-prices-'));
    try {
      const missing = path.join(dir, 'nope.json');
      assert.throws(() => cliPrices(parsed('list', '--prices', missing), {}), usageError(/^--prices: cannot read .*nope\.json: ENOENT$/));
      const bad = path.join(dir, 'prices.json');
      fs.writeFileSync(bad, JSON.stringify({ 'claude-sonnet-5-5': { input: 'cheap' } }));
      assert.throws(() => cliPrices(parsed('list', '--prices', bad), {}), usageError(/^--prices: prices\.json\["claude-sonnet-5-5"\]\.input must be a non-negative number/));
      assert.throws(() => cliPrices(parsed('list'), { FORK_AGENTS_PRICES: missing }), usageError(/^FORK_AGENTS_PRICES: cannot read /));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fork --help lists --approval, its default and who answers', () => {
    const help = parseCommandLine(['fork', '--help']) as { kind: string; text: string };
    assert.equal(help.kind, 'help');
    assert.match(help.text, /fork --session ID \[--approval ask\|auto-edit\|auto\]/);
    assert.match(help.text, /--approval: default the mode the session's chat last ran with/);
    assert.match(help.text, /--wait on a terminal asks the fork's approvals here/);
  });
});
